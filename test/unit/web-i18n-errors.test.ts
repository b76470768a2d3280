/**
 * The server's refusals in the member's language (ADR 35): the server answers with a code and an
 * English message; the app words every code itself in any other language, and shows the server's
 * own English in English.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCodeSchema } from '../../src/shared/api.js';
import { errorText } from '../../src/web/i18n/errors.js';
import { catalogOf, loadLanguage } from '../../src/web/i18n/i18n.js';
import { LOCALES, SOURCE_LOCALE } from '../../src/web/i18n/locales.js';
import { ApiRequestError } from '../../src/web/lib/api.js';

const CODES = [...ErrorCodeSchema.options, 'network_error', 'bad_response'] as const;

/** The language as the page would have it, without a page to set `<html lang>` on. */
async function speak(locale: string): Promise<void> {
  (await loadLanguage(locale))();
}

afterEach(async () => {
  await speak(SOURCE_LOCALE);
});

describe('error codes in the member language', () => {
  it('every code the server or the client can give has a message of its own', () => {
    const messages = CODES.map((code) => errorText(code));
    for (const [index, message] of messages.entries()) {
      expect(message, CODES[index]).toMatch(/\w{3}/);
    }
    expect(new Set(messages).size).toBe(CODES.length);
  });

  for (const { code: locale } of LOCALES.filter(({ code }) => code !== SOURCE_LOCALE)) {
    it(`${locale}: every code's message is translated`, async () => {
      const catalog = await catalogOf(locale);
      for (const code of CODES) expect(catalog[errorText(code)], code).toBeDefined();
    });
  }

  it("shows the server's English in English, and the app's words in German", async () => {
    const refusal = new ApiRequestError(404, {
      code: 'counter_not_found',
      message: 'Counter not found',
    });
    expect(refusal.serverMessage).toBe('Counter not found');
    await speak('de');
    expect(refusal.serverMessage).toBe('Zähler nicht gefunden');
  });
});
