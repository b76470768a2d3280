import { lazy, Suspense } from 'react';
import { TopBar } from './components/TopBar.js';
import { accessKeyOf } from './lib/access-key.js';
import { openEarly } from './lib/opening.js';
import { displayGroupOf, useLocation } from './lib/router.js';

// Each screen is its own chunk: a visitor downloads React plus the one screen they open
// (the initial JavaScript stays within its gzip budget, test/e2e/bundle.spec.ts).
const loadLanding = () => import('./routes/Landing.js');
const loadGroupScreen = () => import('./routes/Group.js');
const loadDisplayScreen = () => import('./routes/Display.js');
const Landing = lazy(() => loadLanding().then((m) => ({ default: m.Landing })));
const GroupScreen = lazy(() => loadGroupScreen().then((m) => ({ default: m.GroupScreen })));
const DisplayScreen = lazy(() => loadDisplayScreen().then((m) => ({ default: m.DisplayScreen })));

// The first URL's screen chunk is requested now, as the entry script runs, not after React's first
// render asks for it (one render sooner on a slow phone). A group link's group and counters start
// loading too, while that chunk downloads.
const first = new URL(window.location.href);
const firstDisplay = displayGroupOf(first.pathname);
const firstName = firstDisplay ?? groupNameOf(first.pathname);
void (
  firstDisplay !== null ? loadDisplayScreen : firstName === '' ? loadLanding : loadGroupScreen
)().catch(() => undefined);
if (firstName !== '') openEarly(firstName, accessKeyOf(first.search));

/** Routes: / (landing), /{groupName}?key=… (a group) and /{groupName}/display?key=… (its display). */
export function App() {
  const location = useLocation();
  const url = new URL(location, window.location.origin);
  const displayName = displayGroupOf(url.pathname);
  const rawName = groupNameOf(url.pathname);
  return (
    // Until a screen's chunk arrives, its top bar stands alone: the theme toggle is there at once.
    <Suspense fallback={<TopBar />}>
      {displayName !== null ? (
        <DisplayScreen key={location} rawName={displayName} accessKey={accessKeyOf(url.search)} />
      ) : rawName === '' ? (
        <Landing />
      ) : (
        <GroupScreen key={location} rawName={rawName} accessKey={accessKeyOf(url.search)} />
      )}
    </Suspense>
  );
}

function groupNameOf(pathname: string): string {
  const raw = pathname.replace(/^\/+|\/+$/g, '');
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
