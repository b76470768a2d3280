/**
 * axe in a real page: the serious and critical findings, each as "rule: selectors" so a failing
 * test says where. The specs expect none, in both themes.
 *
 * Transitions and animations are held at their end while axe runs: a button that has just turned
 * enabled, or a colour still fading after a click, would otherwise be measured between its two
 * colours, and a contrast finding would depend on how fast the machine ran the test.
 */
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from '@playwright/test';

const SETTLED_STYLE_ID = 'a11y-settled';

export async function seriousA11yFindings(page: Page): Promise<string[]> {
  await page.evaluate((id) => {
    const style = document.createElement('style');
    style.id = id;
    style.textContent =
      '*, *::before, *::after { transition: none !important; animation: none !important; }';
    document.head.append(style);
  }, SETTLED_STYLE_ID);
  try {
    const results = await new AxeBuilder({ page }).analyze();
    return results.violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map(
        (violation) =>
          `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
      );
  } finally {
    await page.evaluate((id) => document.getElementById(id)?.remove(), SETTLED_STYLE_ID);
  }
}
