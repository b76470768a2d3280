/**
 * The screenshot at the top of README: a group as people use it, on a desktop in the light theme.
 * Written only when a run asks for screenshots (`TALLY_SCREENSHOTS=1 npm run test:e2e`), and into
 * docs/screenshots, since README links it (the others go to the git-ignored .tmp/screenshots).
 */
import {
  api,
  expect,
  openGroup,
  SCREEN_SIZES,
  seedGroup,
  startInTheme,
  test,
} from './support/fixtures.js';
import { docsScreenshotPath, screenshotsWanted } from './support/screenshots.js';

test.describe('README screenshot', () => {
  test.skip(!screenshotsWanted, 'only when TALLY_SCREENSHOTS=1');

  test('a game night with goals, a limit and sections', async ({ page }) => {
    const { name, key } = await seedGroup(
      [
        { name: 'Coffees', description: 'Refills at the kitchen table', value: 14, goal: 20 },
        { name: 'Pizzas', description: 'Ordered so far', value: 3, max: 4 },
        { name: 'Snacks', value: 9 },
        { name: 'Board games played', value: 5, section: 'Games' },
        { name: 'Wins for Ada', value: 3, section: 'Games', incrementStep: 1 },
      ],
      'game-night',
    );
    await api.updateGroup(name, key, { displayName: 'Game night' });
    await page.setViewportSize(SCREEN_SIZES.desktop);
    await startInTheme(page, 'light');
    await openGroup(page, name, key);
    await expect(page.getByRole('heading', { name: 'Game night' })).toBeVisible();
    await page.screenshot({ path: docsScreenshotPath('readme-group-desktop-light.png') });
  });
});
