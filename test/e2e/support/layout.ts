/**
 * Layout checks for a page in any language (docs/product.md#languages): whether it scrolls
 * sideways, and which text runs past its own box.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';

/** How far the page scrolls sideways, px: 0 or less when nothing is wider than the screen. */
export const sideways = (page: Page): Promise<number> =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** Text boxes under `root` whose text runs past their own width (the text is cut off). */
export function clippedIn(page: Page, root: string): Promise<(string | null)[]> {
  return page.evaluate(
    (selector) =>
      [...document.querySelectorAll(`${selector} *`)]
        .filter((element) => element.children.length === 0 && element.textContent.trim())
        // Text for screen readers alone is clipped to a pixel on purpose (`sr-only`, also when
        // only at some widths, as a button's label beside its icon on a phone).
        .filter(
          (element) => !element.closest('.sr-only') && element.getBoundingClientRect().width > 1,
        )
        .filter((element) => element.scrollWidth > element.clientWidth + 1)
        .map((element) => element.textContent),
    root,
  );
}

/** The buttons under `root` whose label runs onto a second line (a word broken in the middle). */
export function wrappedLabels(page: Page, root: string): Promise<string[]> {
  return page.evaluate(
    (selector) =>
      [...document.querySelectorAll(`${selector} button`)]
        .filter((button) => {
          const lines = new Set<number>();
          const walker = document.createTreeWalker(button, NodeFilter.SHOW_TEXT);
          for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            const box = node.parentElement?.getBoundingClientRect();
            if (!node.textContent?.trim() || !box || box.width <= 1) continue;
            const range = document.createRange();
            range.selectNodeContents(node);
            for (const rect of range.getClientRects()) lines.add(Math.round(rect.top));
          }
          return lines.size > 1;
        })
        .map((button) => button.textContent.trim()),
    root,
  );
}

const LOCALES_DIR = path.resolve(import.meta.dirname, '../../../src/web/locales');

/**
 * `english` as `locale`'s catalog words it, to find a control by the name a member of that
 * language reads. Single-line entries only, which every button's name is.
 */
export function translated(locale: string, english: string): string {
  const catalog = fs.readFileSync(path.join(LOCALES_DIR, `${locale}.po`), 'utf8');
  const msgid = `msgid ${JSON.stringify(english)}`;
  const entry = catalog.split('\n\n').find((block) => block.split('\n').includes(msgid));
  const line = entry?.split('\n').find((text) => text.startsWith('msgstr "'));
  const words = line === undefined ? '' : (JSON.parse(line.slice('msgstr '.length)) as string);
  if (words === '') throw new Error(`${locale}.po has no words for ${english}`);
  return words;
}
