/**
 * The API reference page (GET /api/docs, Swagger UI) in Chromium under Tally's own
 * Content-Security-Policy: it lists every operation of /api/openapi.json, opens one, authorises
 * and calls the API from the page, with no console error and no CSP violation, and loads nothing
 * of the web app (every file it fetches is under /api/).
 */
import type { OpenApiDocument } from '../../src/server/routes/openapi.js';
import { baseUrl, expect, test } from './support/fixtures.js';

test('the API reference lists every operation and works under the CSP', async ({ page }) => {
  // One visibility check per operation (about 60) on a shared two-core machine.
  test.setTimeout(60_000);
  const openapi = (await (await fetch(`${baseUrl()}/api/openapi.json`)).json()) as OpenApiDocument;
  const operations = Object.entries(openapi.paths).flatMap(([path, methods]) =>
    Object.keys(methods).map((method) => ({ path, method })),
  );

  const problems: string[] = [];
  const fetched: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning')
      problems.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('request', (request) => fetched.push(new URL(request.url()).pathname));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
  });
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      // Reported as a console error too, so the listener above records it.
      console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`);
    });
  });

  // What Tally sends out (a standard alert webhook) is listed too, as a block of its own.
  const webhooks = Object.values(openapi.webhooks).flatMap((methods) => Object.keys(methods));
  expect(webhooks.length).toBeGreaterThan(0);

  await page.goto('/api/docs');
  await expect(page.locator('.opblock')).toHaveCount(operations.length + webhooks.length);
  for (const { path, method } of operations) {
    const block = page.locator(`.opblock-${method}`, {
      has: page.locator(`.opblock-summary-path[data-path="${path}"]`),
    });
    await expect(block, `${method} ${path}`).toBeVisible();
  }

  // One operation opened: its parameters, body and answers, drawn with the stylesheet's icons.
  const increment = page.locator('.opblock-post', {
    has: page.locator('[data-path="/api/groups/{name}/counters/{id}/increment"]'),
  });
  await increment.locator('.opblock-summary').click();
  await expect(increment.getByText('Idempotency-Key')).toBeVisible();
  await expect(increment.locator('.response[data-code="422"]')).toBeVisible();

  // Authorise with a key, then call the API from the page (connect-src 'self').
  await page
    .getByRole('button', { name: /Authorize/ })
    .first()
    .click();
  const dialog = page.locator('.modal-ux');
  await dialog.locator('input').fill('0'.repeat(64));
  await dialog.getByRole('button', { name: 'Apply credentials' }).click();
  await expect(dialog.getByRole('button', { name: 'Remove authorization' })).toBeVisible();
  await dialog.getByRole('button', { name: 'Close' }).click();

  const health = page.locator('.opblock-get', { has: page.locator('[data-path="/api/health"]') });
  await health.locator('.opblock-summary').click();
  await health.getByRole('button', { name: 'Try it out' }).click();
  await health.getByRole('button', { name: 'Execute' }).click();
  await expect(
    health.locator('.live-responses-table tr.response .response-col_status').first(),
  ).toHaveText('200');

  await page.screenshot({ path: test.info().outputPath('api-docs.png'), fullPage: false });
  expect(problems).toEqual([]);
  expect(fetched.filter((path) => !path.startsWith('/api/'))).toEqual([]);
});
