import { useLingui } from '@lingui/react/macro';
import { lazy, Suspense, useEffect, useState, useSyncExternalStore } from 'react';
import type { GroupSnapshot } from '../../shared/api.js';
import { loadingGroup } from '../i18n/messages.js';
import { prefetchCardEditors } from '../components/CounterCard.js';
import { ErrorBanner } from '../components/ErrorBanner.js';
import { loadMenuList } from '../components/Menu.js';
import { whenIdle } from '../lib/idle.js';
import { tapLinkSentence, tapRights } from '../lib/tap-links.js';
import { groupUrl, navigate } from '../lib/router.js';
import { ensureGuestName, ensureMemberId } from '../lib/storage.js';
import type { GroupStore } from '../live/groupStore.js';
import { holdEarlyKeys } from '../lib/early-keys.js';
import { CounterGrid } from './group/CounterGrid.js';
import { GroupHeader } from './group/GroupHeader.js';
import { loadHereNowPanel } from './group/HeaderStatus.js';
import { Pending, Shell } from './group/Page.js';
import { AccessDenied, OfflineOpening } from './group/Notices.js';
import { useGroupAccess } from './group/useGroupAccess.js';

const loadImageUrlDialog = () => import('../components/ImageUrlDialog.js');
const ProfilePictureDialog = lazy(() =>
  loadImageUrlDialog().then((m) => ({ default: m.ProfilePictureDialog })),
);
// The dialog's own chunk is prefetched when idle; the QR encoder it imports loads only on opening.
const loadShareDialog = () => import('../components/ShareDialog.js');
// Shown only while the server's database is away: fetched when the screen is idle, not first.
const loadSavingPaused = () => import('../components/SavingPaused.js');
const SavingPaused = lazy(() => loadSavingPaused().then((m) => ({ default: m.SavingPaused })));
const ShareDialog = lazy(() => loadShareDialog().then((m) => ({ default: m.ShareDialog })));
// Keyboard counting has nothing to paint until a key is pressed: its chunk is fetched as the
// screen first renders, beside the first paint instead of in it.
const KeyboardCounting = lazy(() =>
  import('./group/KeyboardCounting.js').then((m) => ({ default: m.KeyboardCounting })),
);

/** Set by a key change in this tab: the screen opened with the new key shows its link. */
let keyJustChanged: string | null = null;

/** The member this tab is in 'Here now'. */
const thisMember = () => ({ id: ensureMemberId(), name: ensureGuestName() });

/** Canonical address (the slug), so Share URL and reloads use it. */
function showCanonicalAddress(snapshot: GroupSnapshot, key: string): void {
  const canonical = groupUrl(snapshot.group.name, key);
  if (window.location.pathname + window.location.search !== canonical) {
    window.history.replaceState(null, '', canonical);
  }
}

/**
 * The route /{groupName}?key=… (docs/product.md#group-screen): loading, then access denied or
 * the group.
 */
export function GroupScreen({ rawName, accessKey }: { rawName: string; accessKey: string | null }) {
  const { t } = useLingui();
  const access = useGroupAccess(rawName, accessKey, {
    member: thisMember,
    onGranted: showCanonicalAddress,
  });

  // Keys pressed before keyboard counting's chunk has loaded are held for it, not lost.
  useEffect(() => holdEarlyKeys(), []);

  const loading = loadingGroup();
  const denied = t`Access Denied`;
  useEffect(() => {
    if (access.phase === 'loading' && access.answered !== true) {
      document.title = `${loading} · Tally`;
    }
    if (access.phase === 'denied') document.title = `${denied} · Tally`;
  }, [access.phase, loading, denied]);

  if (access.phase === 'loading') {
    // A group already known is granted before this frame is painted: nothing to say meanwhile.
    return <Shell>{access.answered === true ? null : <Pending>{loading}</Pending>}</Shell>;
  }
  if (access.phase === 'offline') return <OfflineOpening rawName={rawName} />;
  if (access.phase === 'denied') return <AccessDenied message={access.message} />;
  return <GroupView store={access.store} />;
}

function GroupView({ store }: { store: GroupStore }) {
  const { t } = useLingui();
  const state = useSyncExternalStore(store.subscribe, store.getState);
  const { group } = state;
  const [editingPicture, setEditingPicture] = useState(false);
  const [sharing, setSharing] = useState(() => {
    const rotated = keyJustChanged === store.key;
    keyJustChanged = null;
    return rotated;
  });
  const [rotatedNotice] = useState(sharing);
  // A view-only link changes nothing; a tap link only taps (the rights say which way).
  const readOnly = state.access !== 'full';
  const rights = tapRights(state.access, state.link);
  const tapLink = state.link;
  const tapLinkLabel = tapLink?.label ?? '';

  useEffect(() => {
    document.title = `${group.displayName} · Tally`;
  }, [group.displayName]);

  // The dialogs are separate chunks: fetch them once the screen is up, before anyone needs them.
  useEffect(() => {
    whenIdle(() => {
      prefetchCardEditors();
      loadMenuList();
      loadHereNowPanel();
      void loadImageUrlDialog();
      void loadShareDialog();
      void loadSavingPaused();
    });
  }, []);

  // A counter this tab just created scrolls into view (it may be below the fold).
  useEffect(() => {
    if (state.lastCreatedId === null) return;
    document
      .getElementById(`counter-${state.lastCreatedId}`)
      ?.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
  }, [state.lastCreatedId]);

  // Unconfirmed taps are kept for the next visit (the outbox); if they could not be, ask first.
  useEffect(() => {
    if (state.pendingCount === 0 || state.pendingDurable) return;
    const warn = (event: BeforeUnloadEvent) => {
      event.preventDefault();
    };
    window.addEventListener('beforeunload', warn);
    return () => {
      window.removeEventListener('beforeunload', warn);
    };
  }, [state.pendingCount, state.pendingDurable]);

  // Online, a change is confirmed within milliseconds: say it waits only when it does.
  const slow = useHeldFor(state.pendingCount > 0, PENDING_NOTICE_AFTER_MS);
  const showPending = state.pendingCount > 0 && (state.status !== 'live' || !state.saving || slow);

  if (state.fatal !== null) return <AccessDenied message={state.fatal} />;

  const addCounter = () => {
    store.createCounter();
  };
  const shareUrl = window.location.origin + groupUrl(store.slug, store.key);

  return (
    <Shell>
      <GroupHeader
        store={store}
        state={state}
        readOnly={readOnly}
        showPending={showPending}
        shareUrl={shareUrl}
        onEditPicture={() => {
          setEditingPicture(true);
        }}
        onShowQrCode={() => {
          setSharing(true);
        }}
        onAddCounter={addCounter}
      />

      {state.access === 'tap' && tapLink !== null && (
        <p className="tap-link-line" data-testid="tap-link-line">
          <strong className="font-semibold">{t`Tap link · ${tapLinkLabel}`}</strong> —{' '}
          {tapLinkSentence(tapLink, state.counters?.length ?? 0)}
        </p>
      )}

      {state.status === 'live' && !state.saving && (
        <Suspense fallback={null}>
          <SavingPaused waiting={state.pendingCount} />
        </Suspense>
      )}

      {state.error !== null && (
        <ErrorBanner
          message={state.error}
          onDismiss={() => {
            store.dismissError();
          }}
        />
      )}

      <CounterGrid
        store={store}
        state={state}
        readOnly={readOnly}
        rights={rights}
        showPending={showPending}
        onAddCounter={addCounter}
      />
      <Suspense fallback={null}>
        <KeyboardCounting store={store} state={state} rights={rights} />
      </Suspense>

      {editingPicture && (
        <Suspense fallback={null}>
          <ProfilePictureDialog
            currentUrl={group.profileImageUrl}
            groupName={group.displayName}
            onSave={(profileImageUrl) => {
              store.updateGroup({ profileImageUrl });
            }}
            onClose={() => {
              setEditingPicture(false);
            }}
          />
        </Suspense>
      )}
      {sharing && (
        <Suspense fallback={null}>
          <ShareDialog
            slug={store.slug}
            accessKey={store.key}
            access={state.access}
            counters={state.counters ?? []}
            notice={
              rotatedNotice
                ? t`The access key was changed. Old links no longer work: share this new one.`
                : null
            }
            onKeyChanging={(changing) => {
              store.expectKeyChange(changing);
            }}
            onKeyChanged={(newKey) => {
              keyJustChanged = newKey;
              navigate(groupUrl(store.slug, newKey), { replace: true });
            }}
            onClose={() => {
              setSharing(false);
            }}
          />
        </Suspense>
      )}
    </Shell>
  );
}

/** Pending changes are announced once they have waited this long while the page is live, ms. */
const PENDING_NOTICE_AFTER_MS = 2_000;

/** True once `condition` has held without a break for `ms`. */
function useHeldFor(condition: boolean, ms: number): boolean {
  const [held, setHeld] = useState(false);
  useEffect(() => {
    if (!condition) {
      setHeld(false);
      return;
    }
    const timer = setTimeout(() => {
      setHeld(true);
    }, ms);
    return () => {
      clearTimeout(timer);
    };
  }, [condition, ms]);
  return held && condition;
}
