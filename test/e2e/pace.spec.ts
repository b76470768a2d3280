/**
 * A counter's live pace and forecast on its card, worked out in the browser from the
 * live changes. One member watches while another taps a burst in a browser of their own; a goal
 * set through the REST API then brings the forecast. Against the real server.
 * TALLY_SCREENSHOTS=1 also writes .tmp/screenshots/pace-*.png.
 */
import type { Page } from '@playwright/test';
import {
  api,
  counterCard,
  counterValue,
  expect,
  openGroup,
  seedGroup,
  test,
} from './support/fixtures.js';
import { memberPage } from './support/members.js';
import { seriousA11yFindings } from './support/a11y.js';
import { screenshotPath, screenshotsWanted } from './support/screenshots.js';

const DESKTOP = { width: 1280, height: 900 };

for (const theme of ['light', 'dark'] as const) {
  test(`another member's burst of taps shows a pace, a goal a forecast (${theme})`, async ({
    browser,
  }) => {
    const group = await seedGroup([{ name: 'Door' }, { name: 'Bar' }], 'pace');
    const [door] = group.counters;
    if (!door) throw new Error('no counter');
    const watcher = await memberPage(browser, 'Watcher', { theme, viewport: DESKTOP });
    const tapper = await memberPage(browser, 'Tapper', { theme, viewport: DESKTOP });
    await openGroup(watcher, group.name, group.key);
    await openGroup(tapper, group.name, group.key);

    const watched = counterCard(watcher, 'Door');
    // Idle: no pace at all.
    await expect(watched.getByTestId('pace')).toHaveCount(0);

    const plus = counterCard(tapper, 'Door').getByRole('button', { name: 'Increment by 1' });
    await pressTimes(plus, 10);
    await expect(counterValue(watched)).toHaveText('10');
    expect((await api.counters(group.name, group.key)).find((c) => c.id === door.id)?.value).toBe(
      10,
    );

    // 10 taps seen within the first minute: a pace (at most 30/min, measured over ≥ 20 s), and
    // no forecast without a goal or a maximum. The other counter stays idle.
    const pace = watched.getByTestId('pace');
    await expect(pace).toHaveText(/^Pace: (\d+(\.\d)?) per minute\d+(\.\d)?\/min$/);
    const shown = Number(/(\d+(?:\.\d)?)\/min/.exec((await pace.textContent()) ?? '')?.[1]);
    expect(shown).toBeGreaterThan(0);
    expect(shown).toBeLessThanOrEqual(30);
    await expect(pace).not.toContainText('at this pace');
    await expect(counterCard(watcher, 'Bar').getByTestId('pace')).toHaveCount(0);
    // Not a live region: a screen reader is not told about every tap.
    await expect(pace.locator('xpath=ancestor-or-self::*[@aria-live]')).toHaveCount(0);

    // A goal set by REST reaches the watcher live: the forecast follows (≥ 90 to go at ≤ 30/min).
    await api.updateCounter(group.name, group.key, door.id, { goal: 100 });
    await expect(pace).toContainText(/at this pace: reached in about \d+ (min|h)$/);
    const minutes = Number(/about (\d+) min/.exec((await pace.textContent()) ?? '')?.[1]);
    expect(minutes).toBeGreaterThanOrEqual(3);

    // Counting down, away from the goal: a pace without a forecast.
    const minus = counterCard(tapper, 'Door').getByRole('button', { name: 'Decrement by 1' });
    await pressTimes(minus, 15);
    await expect(counterValue(watched)).toHaveText('-5');
    await expect(pace).toContainText('\u2212');
    await expect(pace).not.toContainText('at this pace');

    expect(await seriousA11yFindings(watcher)).toEqual([]);
    if (screenshotsWanted) {
      await pressTimes(plus, 10);
      await expect(pace).toContainText('at this pace');
      await watched.screenshot({ path: screenshotPath(`pace-card-${theme}.png`) });
    }
    await watcher.context().close();
    await tapper.context().close();
  });
}

/** Presses a button `times` times (the screenshot's burst back toward the goal). */
async function pressTimes(button: ReturnType<Page['getByRole']>, times: number): Promise<void> {
  for (let i = 0; i < times; i += 1) await button.click();
}

test('the pace goes away once the counter is left alone for a minute', async ({ browser }) => {
  const group = await seedGroup([{ name: 'Door', goal: 50 }], 'pace-idle');
  const [door] = group.counters;
  if (!door) throw new Error('no counter');
  const page = await memberPage(browser, 'Watcher', {
    theme: 'light',
    viewport: { width: 360, height: 800 },
  });
  await page.clock.install();
  await openGroup(page, group.name, group.key);
  await api.increment(group.name, group.key, door.id, 5);
  const card = counterCard(page, 'Door');
  await expect(counterValue(card)).toHaveText('5');
  await expect(card.getByTestId('pace')).toContainText('at this pace: reached in about');
  // A minute and more without a change: the pace slides out of the window.
  await page.clock.fastForward(65_000);
  await expect(card.getByTestId('pace')).toHaveCount(0);
  await page.context().close();
});
