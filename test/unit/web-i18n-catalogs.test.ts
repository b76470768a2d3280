/**
 * Every language has every message, with the same placeholders, and plurals in the forms the
 * language needs (docs/product.md#languages): a catalog that lags behind the code, drops a
 * `{name}` or lacks a plural form fails here rather than on a member's screen.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { compileMessage, type CompiledMessage } from '@lingui/message-utils/compileMessage';
import { describe, expect, it } from 'vitest';
import { LOCALES, PSEUDO_LOCALE, SOURCE_LOCALE } from '../../src/web/i18n/locales.js';

const LOCALE_DIR = path.resolve(import.meta.dirname, '../../src/web/locales');

/** msgid → msgstr of one catalog (Lingui writes each on one line). */
function catalog(code: string): Map<string, string> {
  const text = readFileSync(path.join(LOCALE_DIR, `${code}.po`), 'utf8');
  const entries = new Map<string, string>();
  for (const match of text.matchAll(/^msgid "(.*)"\nmsgstr "(.*)"$/gm)) {
    const id = JSON.parse(`"${match[1] ?? ''}"`) as string;
    if (id !== '') entries.set(id, JSON.parse(`"${match[2] ?? ''}"`) as string);
  }
  return entries;
}

interface Shape {
  /** Every `{name}`, with its kind (plain, plural, select…). */
  placeholders: Set<string>;
  /** The forms each plural offers. */
  plurals: Map<string, Set<string>>;
}

function shapeOf(message: string): Shape {
  const shape: Shape = { placeholders: new Set(), plurals: new Map() };
  const walk = (tokens: CompiledMessage) => {
    if (typeof tokens === 'string') return;
    for (const token of tokens) {
      if (typeof token === 'string') continue;
      const [name, kind, options] = token;
      shape.placeholders.add(`${name}:${kind ?? 'plain'}`);
      if (kind === 'plural' && options) shape.plurals.set(name, new Set(Object.keys(options)));
      if (options && typeof options === 'object') {
        for (const option of Object.values(options)) {
          if (Array.isArray(option)) walk(option as CompiledMessage);
        }
      }
    }
  };
  walk(compileMessage(message));
  return shape;
}

const english = catalog(SOURCE_LOCALE);
const translated = LOCALES.map((locale) => locale.code).filter((code) => code !== SOURCE_LOCALE);

describe('the catalogs', () => {
  it('English lists the messages the code has (npx lingui extract writes it)', () => {
    expect(english.size).toBeGreaterThan(50);
    for (const [id, translation] of english)
      expect(translation === '' || translation === id).toBe(true);
    expect([...catalog(PSEUDO_LOCALE).keys()].sort()).toEqual([...english.keys()].sort());
  });

  for (const code of translated) {
    describe(code, () => {
      const messages = catalog(code);
      const rules = new Intl.PluralRules(code);

      it('has every message, translated, and no other', () => {
        expect([...messages.keys()].sort()).toEqual([...english.keys()].sort());
        const untranslated = [...messages].filter(([, translation]) => translation === '');
        expect(untranslated.map(([id]) => id)).toEqual([]);
      });

      it('keeps each placeholder, and offers every plural form the language uses', () => {
        const needed = rules.resolvedOptions().pluralCategories;
        for (const [id, translation] of messages) {
          const source = shapeOf(id);
          const shape = shapeOf(translation);
          expect([...shape.placeholders].sort(), id).toEqual([...source.placeholders].sort());
          for (const [name, forms] of shape.plurals) {
            for (const form of needed) expect(forms, `${id}: ${name} ${form}`).toContain(form);
          }
        }
      });
    });
  }
});
