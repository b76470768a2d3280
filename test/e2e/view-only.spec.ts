import { MESSAGES } from '../../src/shared/messages.js';
import { baseUrl, counterCard, expect, openGroup, seedGroup, test } from './support/fixtures.js';

async function createViewKey(name: string, key: string): Promise<string> {
  const response = await fetch(`${baseUrl()}/api/groups/${name}/view-key`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
  });
  expect(response.ok).toBe(true);
  return ((await response.json()) as { viewKey: string }).viewKey;
}

test.describe('view-only link', () => {
  test('the share dialog creates a view-only link with its QR code and turns it off', async ({
    page,
    browser,
  }) => {
    const { name, key } = await seedGroup();
    await openGroup(page, name, key);
    await page.getByRole('button', { name: 'Show QR code' }).click();
    const dialog = page.getByRole('dialog', { name: 'Share this group' });
    await dialog.getByRole('tab', { name: 'View only' }).click();
    await dialog.getByRole('button', { name: 'Create view-only link' }).click();
    await expect(dialog.getByRole('img', { name: 'QR code of the view-only link' })).toBeVisible();
    // One link at a time: the view-only one, with its own Copy link.
    const link = dialog.getByText(new RegExp(`/${name}\\?key=[0-9a-f]{64}$`));
    await expect(link).toHaveCount(1);
    const viewUrl = (await link.textContent()) ?? '';
    expect(viewUrl).not.toContain(key);
    await expect(dialog.getByRole('button', { name: 'Copy link' })).toHaveCount(1);
    // A projector showing the view-only link…
    const projector = await (await browser.newContext()).newPage();
    await projector.goto(viewUrl);
    await expect(projector.getByText('View only', { exact: true })).toBeVisible();

    await dialog.getByRole('button', { name: 'Turn off' }).click();
    await expect(dialog.getByRole('button', { name: 'Create view-only link' })).toBeVisible();
    await expect(dialog.getByRole('img', { name: 'QR code of the view-only link' })).toHaveCount(0);
    // …is told at once that its link stopped working (not that the group's key changed).
    await expect(projector.getByText(MESSAGES.viewLinkChanged)).toBeVisible();
    await projector.context().close();
  });

  test('a view-only page has no editing controls and still sees taps live', async ({ browser }) => {
    const { name, key } = await seedGroup([{ name: 'Laps', description: 'Around the park' }]);
    const viewKey = await createViewKey(name, key);
    const editor = await (await browser.newContext()).newPage();
    const viewer = await (await browser.newContext()).newPage();
    await openGroup(editor, name, key);
    await openGroup(viewer, name, viewKey);

    await expect(viewer.getByText('View only', { exact: true })).toBeVisible();
    const card = counterCard(viewer, 'Laps');
    await expect(card).toBeVisible();
    await expect(card.getByText('Around the park')).toBeVisible();
    for (const label of [
      'Add Counter',
      'Change profile picture',
      /^Increment by/,
      /^Decrement by/,
      'Delete counter',
      'Add thumbnail',
      /^Counter name:/,
      /^Counter value:/,
      /^Group name:/,
    ]) {
      await expect(viewer.getByRole('button', { name: label })).toHaveCount(0);
    }

    const value = card.locator('[data-field="Counter value"]');
    await expect(value).toHaveText('0');
    await editor.getByRole('button', { name: 'Increment by 1' }).click();
    await expect(value).toHaveText('1');

    // Activity still opens, without Undo.
    await viewer.getByRole('button', { name: 'Activity' }).click();
    await expect(viewer.getByRole('list', { name: 'Activity log' })).toBeVisible();
    await expect(viewer.getByRole('list', { name: 'Activity log' })).toContainText(/Laps/);
    await expect(viewer.getByRole('button', { name: /^Undo/ })).toHaveCount(0);
    // Export is reading, so it stays.
    const download = viewer.waitForEvent('download');
    await viewer
      .getByRole('group', { name: 'Export' })
      .getByRole('button', { name: 'Counters (CSV)' })
      .click();
    expect((await download).suggestedFilename()).toMatch(/\.csv$/);
    // Ctrl+Z takes nothing back either.
    await viewer.keyboard.press('Control+z');
    await expect(value).toHaveText('1');
    await expect(editor.getByRole('button', { name: 'Counter value: 1' })).toBeVisible();
    await editor.context().close();
    await viewer.context().close();
  });
});
