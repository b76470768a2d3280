/**
 * A tap the limits refuse says why on the card itself, where a phone (no hover, no tooltip) shows
 * it, and the room left under a limit can still be filled when a whole step would pass it: by a
 * button that says the value it sets, since only taps are counted and this is not one.
 */
import { MESSAGES } from '../../src/shared/messages.js';
import {
  api,
  baseUrl,
  counterCard,
  counterValue,
  expect,
  openGroup,
  SCREEN_SIZES,
  seedGroup,
  test,
} from './support/fixtures.js';

test.describe('limits on the card', () => {
  test('at 29 of 30 with a step of 5 the reason is on screen, and "Set to 30" fills the last place', async ({
    browser,
  }) => {
    const { name, key, counters } = await seedGroup([
      { name: 'Hall', value: 29, max: 30, incrementStep: 5 },
    ]);
    // The server refuses the whole step: it never stops halfway.
    const refused = await fetch(
      `${baseUrl()}/api/groups/${name}/counters/${counters[0]?.id ?? ''}/increment`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ times: 1 }),
      },
    );
    expect(refused.status).toBe(409);

    const context = await browser.newContext({
      viewport: SCREEN_SIZES.phone,
      hasTouch: true,
      isMobile: true,
    });
    const page = await context.newPage();
    await openGroup(page, name, key);
    const card = counterCard(page, 'Hall');
    await expect(card.getByText('Nearly full · 1 left')).toBeVisible();
    const plus = card.getByRole('button', { name: 'Increment by 5' });
    await expect(plus).toHaveAttribute('aria-disabled', 'true');
    // Visible text on the card, not a tooltip, and it is what the button is described by.
    const reason = card.getByText(MESSAGES.limitAbove(30), { exact: true });
    await expect(reason).toBeVisible();
    await expect(reason).toBeInViewport();
    await expect(plus).toHaveAccessibleDescription(MESSAGES.limitAbove(30));
    // aria-disabled: Playwright would wait for it to be enabled; a finger does not.
    await plus.tap({ force: true });
    await expect(counterValue(card)).toHaveText('29');

    await card.getByRole('button', { name: 'Set the value to 30' }).tap();
    await expect(counterValue(card)).toHaveText('30');
    await expect(card.getByText('Full', { exact: true })).toBeVisible();
    await expect.poll(async () => (await api.counters(name, key))[0]?.value).toBe(30);
    // Full: the reason stays, with nothing left to add.
    await expect(reason).toBeVisible();
    await expect(card.getByRole('button', { name: /^Set the value to/ })).toHaveCount(0);
    await context.close();
  });

  test('down to a minimum: the reason shows and the value can be set to the minimum', async ({
    page,
  }) => {
    const { name, key } = await seedGroup([{ name: 'Stock', value: 3, min: 0, decrementStep: 5 }]);
    await openGroup(page, name, key);
    const card = counterCard(page, 'Stock');
    await expect(card.getByText(MESSAGES.limitBelow(0), { exact: true })).toBeVisible();
    await card.getByRole('button', { name: 'Set the value to 0' }).click();
    await expect(counterValue(card)).toHaveText('0');
    await expect.poll(async () => (await api.counters(name, key))[0]?.value).toBe(0);
  });

  test('a counter with room for its step shows no limit line', async ({ page }) => {
    const { name, key } = await seedGroup([
      { name: 'Seats', value: 10, max: 30, incrementStep: 5 },
    ]);
    await openGroup(page, name, key);
    const card = counterCard(page, 'Seats');
    await expect(card.getByRole('button', { name: 'Increment by 5' })).toHaveAttribute(
      'aria-disabled',
      'false',
    );
    await expect(card.getByText(/^Limit reached/)).toHaveCount(0);
  });
});
