/**
 * axe in a real page: the serious and critical findings, each as "rule: selectors" so a failing
 * test says where. The specs expect none, in both themes.
 */
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from '@playwright/test';

export async function seriousA11yFindings(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
    );
}
