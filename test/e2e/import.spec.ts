/**
 * Import in the browser: Group settings → Import from a file, a BetterCounter export chosen (the
 * sample in test/fixtures/import, see its README for where the format comes from), its preview
 * (new counters, changes, log entries, what is left out), then Import: the counters appear on the
 * group's screen. A file dropped on the dialog is previewed too; a file that cannot be read says
 * where its first problem is. At 360, 1280 and 1920 px in both themes, without sideways scrolling
 * and with axe clean; screenshots are written to test-results/import-*.png for a person to look
 * at.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { seriousA11yFindings } from './support/a11y.js';
import { counterCard, expect, openGroup, seedGroup, test } from './support/fixtures.js';
import { useTheme, type Theme } from './support/members.js';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/import');
const SHOTS = path.resolve(import.meta.dirname, '../../test-results');

const SIZES = [
  { label: 'phone', width: 360, height: 780 },
  { label: 'desktop', width: 1280, height: 800 },
  { label: 'tv', width: 1920, height: 1080 },
] as const;

async function openImport(page: Page) {
  await page.getByRole('button', { name: 'Group settings' }).click();
  await page
    .getByRole('dialog', { name: 'Group settings' })
    .getByRole('button', { name: 'Import from a file' })
    .click();
  return page.getByRole('dialog', { name: 'Import' });
}

/** Whether the page or an open dialog scrolls sideways. */
function scrollsSideways(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const width = window.innerWidth;
    if (document.documentElement.scrollWidth > width) return true;
    return [...document.querySelectorAll<HTMLElement>('dialog[open]')].some(
      (box) => box.scrollWidth > box.clientWidth + 1,
    );
  });
}

for (const theme of ['light', 'dark'] as Theme[]) {
  for (const size of SIZES) {
    test(`imports a BetterCounter file after its preview (${size.label}, ${theme})`, async ({
      page,
    }) => {
      // Two axe runs and two full-page screenshots: more than the default 30 s on a loaded machine.
      test.setTimeout(90_000);
      await page.setViewportSize({ width: size.width, height: size.height });
      await useTheme(page, theme);
      const { name, key } = await seedGroup([{ name: 'Already here' }]);
      await openGroup(page, name, key);
      const dialog = await openImport(page);
      await expect(dialog.getByRole('button', { name: 'Import', exact: true })).toBeDisabled();

      await dialog
        .getByLabel('Choose a file, or drop it here')
        .setInputFiles(path.join(FIXTURES, 'bettercounter.csv'));
      const summary = dialog.getByRole('region', { name: /If you import bettercounter\.csv/ });
      await expect(summary).toBeVisible();
      await expect(summary.getByRole('definition')).toHaveText(['3', '0', '5']);
      await expect(counterCard(page, 'Coffees')).toHaveCount(0);
      expect(await scrollsSideways(page)).toBe(false);
      expect(await seriousA11yFindings(page)).toEqual([]);
      fs.mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({
        path: path.join(SHOTS, `import-preview-${size.label}-${theme}.png`),
      });

      await dialog.getByRole('button', { name: 'Import', exact: true }).click();
      const done = dialog.getByRole('region', { name: 'Imported from BetterCounter' });
      await expect(done).toBeVisible();
      // What was imported, and no longer the promise that nothing has changed yet.
      await expect(done.getByRole('definition')).toHaveText(['3', '0', '5']);
      await expect(dialog).toHaveAccessibleDescription(/The import is done.*close this dialog/);
      await expect(dialog.getByText(/Nothing changes until you press Import/)).toHaveCount(0);
      await expect(counterCard(page, 'Coffees')).toBeVisible();
      await expect(counterCard(page, 'Push-ups, sets')).toBeVisible();
      expect(await seriousA11yFindings(page)).toEqual([]);
      await page.screenshot({ path: path.join(SHOTS, `import-done-${size.label}-${theme}.png`) });
      await dialog.getByRole('button', { name: 'Close' }).click();
      await expect(dialog).toBeHidden();
    });
  }
}

test('previews a dropped file, and names the line and column of a file it cannot read', async ({
  page,
}) => {
  const { name, key } = await seedGroup();
  await openGroup(page, name, key);
  const dialog = await openImport(page);
  const drop = async (fileName: string, text: string, type: string) => {
    const transfer = await page.evaluateHandle(
      ([content, file, mime]) => {
        const data = new DataTransfer();
        data.items.add(new File([content], file, { type: mime }));
        return data;
      },
      [text, fileName, type] as const,
    );
    await dialog.getByTestId('import-drop').dispatchEvent('drop', { dataTransfer: transfer });
  };

  await drop('broken.csv', 'Coffees,1700000000000\nTeas,1700000000000,soon\n', 'text/csv');
  await expect(dialog.getByRole('alert')).toHaveText(/^line 2, column 20: "soon"/);
  await expect(dialog.getByRole('button', { name: 'Import', exact: true })).toBeDisabled();

  const backup = fs.readFileSync(path.join(FIXTURES, 'simplecounter.json'), 'utf8');
  await drop('backup.json', backup, 'application/json');
  const summary = dialog.getByRole('region', { name: /If you import backup\.json/ });
  await expect(summary.getByRole('definition')).toHaveText(['2', '0', '0']);
  await expect(summary.getByRole('listitem')).toHaveText([/keeps no history/]);
});
