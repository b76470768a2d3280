/**
 * How the web app's messages are built (ADR 35): Lingui's macros, extractor, .po catalogs and
 * compiler, with two choices of our own that keep each screen's first load small.
 *
 * - English stays in the components, already compiled: it needs no catalog (which would put every
 *   screen's and dialog's text into the first load) and no ICU parser in the browser.
 * - A message's key is its English text, not Lingui's hash of it: `t\`Share URL\`` becomes
 *   `_("Share URL")`, no longer than the string was, where a hash would add an id to every message
 *   of the first load. The catalogs are keyed the same way when they compile.
 * - A message of text and `{name}` placeholders ships as its key alone: the browser compiles it
 *   (src/web/i18n/placeholders.ts). Plurals and the rest ship compiled.
 */
import path from 'node:path';
import { transformAsync, types, type PluginObj } from '@babel/core';
import linguiMacro from '@lingui/babel-plugin-lingui-macro';
import { createCompiledCatalog, getCatalogForFile, getCatalogs } from '@lingui/cli/api';
import { getConfig } from '@lingui/conf';
import { compileMessage } from '@lingui/message-utils/compileMessage';
import { generateMessageId } from '@lingui/message-utils/generateMessageId';
import type { Plugin } from 'vite';
import { compilePlaceholders } from './src/web/i18n/placeholders.js';

/** Lingui's macros (`t`, `plural`, `useLingui`) through Babel, before React's plugin sees the JSX. */
export function linguiMacros(): Plugin {
  return {
    name: 'tally:lingui-macros',
    enforce: 'pre',
    transform: {
      filter: { id: /\.tsx?$/, code: /@lingui\/(core|react)\/macro/ },
      async handler(code, id) {
        const result = await transformAsync(code, {
          filename: id,
          babelrc: false,
          configFile: false,
          sourceMaps: true,
          parserOpts: { plugins: ['typescript', 'jsx'] },
          plugins: [[linguiMacro, { stripMessageField: false }], keyedByEnglish],
        });
        if (!result?.code) return null;
        return { code: result.code, map: result.map };
      },
    },
  };
}

/**
 * Rewrites each descriptor the macros made, `{ id: hash, message: "…", values }`: the key becomes
 * the English text and the message its compiled form (placeholders and plurals as data). A message
 * of plain text becomes that text alone.
 */
function keyedByEnglish(): PluginObj {
  return {
    visitor: {
      Program: {
        // After the macros have expanded, which happens as the program is entered.
        exit(program) {
          program.traverse({
            ObjectExpression(descriptor) {
              const field = (name: string) =>
                descriptor.node.properties.find(
                  (p): p is types.ObjectProperty =>
                    types.isObjectProperty(p) && types.isIdentifier(p.key, { name }),
                );
              const id = field('id');
              const message = field('message');
              if (!id || !message || !types.isStringLiteral(message.value)) return;
              const english = message.value.value;
              if (
                !types.isStringLiteral(id.value) ||
                id.value.value !== generateMessageId(english)
              ) {
                // A context or an explicit id: the English text alone would not tell it apart.
                throw descriptor.buildCodeFrameError(
                  'Messages are keyed by their English text: no context or explicit id.',
                );
              }
              const compiled = compileMessage(english);
              const plain =
                Array.isArray(compiled) && compiled.length === 1 && compiled[0] === english;
              if (plain && !field('values')) {
                descriptor.replaceWith(types.stringLiteral(english));
                return;
              }
              id.value = types.stringLiteral(english);
              if (JSON.stringify(compiled) === JSON.stringify(compilePlaceholders(english))) {
                // Text and `{name}` placeholders: the browser splits the key itself (i18n.ts).
                descriptor.node.properties = descriptor.node.properties.filter(
                  (p) => p !== message,
                );
                return;
              }
              message.value = types.valueToNode(compiled);
            },
          });
        },
      },
    },
  };
}

/**
 * Imports of src/web/locales/*.po: Lingui compiles the language's catalog (with English for any
 * message not translated yet, and the pseudo-locale made from English), keyed by English text.
 */
export function linguiCatalogs(): Plugin {
  const config = getConfig({ cwd: import.meta.dirname });
  const {
    rootDir = import.meta.dirname,
    sourceLocale = 'en',
    fallbackLocales,
    pseudoLocale,
  } = config;
  return {
    name: 'tally:lingui-catalogs',
    transform: {
      filter: { id: /\.po$/ },
      async handler(_source, id) {
        // Typed as always found; it is null for a file outside the configured catalogs.
        const found = getCatalogForFile(
          path.relative(rootDir, id),
          await getCatalogs(config),
        ) as ReturnType<typeof getCatalogForFile> | null;
        if (!found) return this.error(`${id} is not one of lingui.config.ts's catalogs`);
        const { locale, catalog } = found;
        this.addWatchFile(catalog.getFilename(sourceLocale));
        const english = await catalog.read(sourceLocale);
        const { messages } = await catalog.getTranslations(locale, {
          fallbackLocales: fallbackLocales ?? {},
          sourceLocale,
        });
        const keyed: Record<string, string> = {};
        for (const [hash, translation] of Object.entries(messages)) {
          const text = english[hash]?.message;
          if (text === undefined) return this.error(`${hash} of ${locale} is not in en.po`);
          keyed[text] = translation;
        }
        const { source, errors } = createCompiledCatalog(locale, keyed, {
          namespace: 'es',
          ...(pseudoLocale === undefined ? {} : { pseudoLocale }),
        });
        if (errors.length > 0) {
          return this.error(
            `${locale}: ${errors.map((error) => `${error.id}: ${error.error.message}`).join('; ')}`,
          );
        }
        return { code: source, map: null, moduleType: 'js' };
      },
    },
  };
}
