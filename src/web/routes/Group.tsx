import { lazy, Suspense, useEffect, useState, useSyncExternalStore } from 'react';
import { MESSAGES } from '../../shared/messages.js';
import { prefetchCardEditors } from '../components/CounterCard.js';
import { CircleAlert, X } from '../components/icons.js';
import { ApiRequestError } from '../lib/api.js';
import { whenIdle } from '../lib/idle.js';
import { takeOpening } from '../lib/opening.js';
import { groupUrl, navigate } from '../lib/router.js';
import { ensureGuestName, ensureMemberId } from '../lib/storage.js';
import { GroupStore } from '../live/groupStore.js';
import { CounterGrid } from './group/CounterGrid.js';
import { KeyboardCounting } from './group/KeyboardCounting.js';
import { GroupHeader } from './group/GroupHeader.js';
import { AccessDenied, OfflineOpening } from './group/Notices.js';
import { Pending, Shell } from './group/Page.js';

const loadImageUrlDialog = () => import('../components/ImageUrlDialog.js');
const ProfilePictureDialog = lazy(() =>
  loadImageUrlDialog().then((m) => ({ default: m.ProfilePictureDialog })),
);
// The dialog's own chunk is prefetched when idle; the QR encoder it imports loads only on opening.
const loadShareDialog = () => import('../components/ShareDialog.js');
const ShareDialog = lazy(() => loadShareDialog().then((m) => ({ default: m.ShareDialog })));

/** Set by a key change in this tab: the screen opened with the new key shows its link. */
let keyJustChanged: string | null = null;

type Access =
  | { phase: 'loading' }
  | { phase: 'offline' }
  | { phase: 'denied'; message: string }
  | { phase: 'granted'; store: GroupStore };

/** Opening again while offline: first delay and cap, ms (doubling), and at once when online. */
const REOPEN_BASE_MS = 1_000;
const REOPEN_MAX_MS = 15_000;

/** SPEC §2 route /{groupName}?key=…: loading, then access denied or the group. */
export function GroupScreen({ rawName, accessKey }: { rawName: string; accessKey: string | null }) {
  const [access, setAccess] = useState<Access>({ phase: 'loading' });
  // Bumped to open again after the network failed (a reload while offline).
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    if (access.phase !== 'offline') return;
    const retry = () => {
      setAttempt((n) => n + 1);
    };
    const timer = setTimeout(retry, Math.min(REOPEN_MAX_MS, REOPEN_BASE_MS * 2 ** attempt));
    window.addEventListener('online', retry);
    return () => {
      clearTimeout(timer);
      window.removeEventListener('online', retry);
    };
  }, [access.phase, attempt]);

  useEffect(() => {
    let store: GroupStore | null = null;
    let cancelled = false;
    const opening = takeOpening(rawName, accessKey);
    if (!opening.ok) {
      setAccess({ phase: 'denied', message: opening.message });
      return;
    }
    // While offline, the offline screen stays up during each new try.
    setAccess((current) => (current.phase === 'offline' ? current : { phase: 'loading' }));
    opening.group.then(
      (snapshot) => {
        if (cancelled) return;
        const { group, seq } = snapshot;
        store = new GroupStore(
          group.name,
          opening.key,
          group,
          seq,
          opening.counters,
          snapshot.access,
          { id: ensureMemberId(), name: ensureGuestName() },
        );
        store.start();
        // Canonical address (the slug), so Share URL and reloads use it.
        const canonical = groupUrl(group.name, opening.key);
        if (window.location.pathname + window.location.search !== canonical) {
          window.history.replaceState(null, '', canonical);
        }
        setAccess({ phase: 'granted', store });
      },
      (error: unknown) => {
        if (cancelled) return;
        // No answer at all: the network is down, not the key wrong. Try again, keep what waits.
        if (error instanceof ApiRequestError && error.status === 0) setAccess({ phase: 'offline' });
        else setAccess({ phase: 'denied', message: accessError(error) });
      },
    );
    return () => {
      cancelled = true;
      store?.dispose();
    };
  }, [rawName, accessKey, attempt]);

  useEffect(() => {
    if (access.phase === 'loading') document.title = `${MESSAGES.loadingGroup} · Tally`;
    if (access.phase === 'denied') document.title = 'Access Denied · Tally';
  }, [access.phase]);

  if (access.phase === 'loading') {
    return (
      <Shell>
        <Pending>{MESSAGES.loadingGroup}</Pending>
      </Shell>
    );
  }
  if (access.phase === 'offline') return <OfflineOpening rawName={rawName} />;
  if (access.phase === 'denied') return <AccessDenied message={access.message} />;
  return <GroupView store={access.store} />;
}

/** SPEC §5 group screen messages, else the raw message, else 'Access denied'. */
function accessError(error: unknown): string {
  if (error instanceof ApiRequestError) {
    switch (error.code) {
      case 'missing_key':
        return MESSAGES.missingNameOrKey;
      case 'invalid_key_format':
        return MESSAGES.invalidKeyFormat;
      case 'wrong_key':
        return MESSAGES.wrongKey;
      case 'network_error':
        return error.message || MESSAGES.accessDenied;
      default:
        return error.serverMessage || MESSAGES.accessDenied;
    }
  }
  return error instanceof Error && error.message ? error.message : MESSAGES.accessDenied;
}

function GroupView({ store }: { store: GroupStore }) {
  const state = useSyncExternalStore(store.subscribe, store.getState);
  const { group } = state;
  const [editingPicture, setEditingPicture] = useState(false);
  const [sharing, setSharing] = useState(() => {
    const rotated = keyJustChanged === store.key;
    keyJustChanged = null;
    return rotated;
  });
  const [rotatedNotice] = useState(sharing);
  const readOnly = state.access === 'view';

  useEffect(() => {
    document.title = `${group.displayName} · Tally`;
  }, [group.displayName]);

  // The dialogs are separate chunks: fetch them once the screen is up, before anyone needs them.
  useEffect(() => {
    whenIdle(() => {
      prefetchCardEditors();
      void loadImageUrlDialog();
      void loadShareDialog();
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
  const showPending = state.pendingCount > 0 && (state.status !== 'live' || slow);

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
        showPending={showPending}
        onAddCounter={addCounter}
      />
      <KeyboardCounting store={store} state={state} readOnly={readOnly} />

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
            notice={
              rotatedNotice
                ? 'The access key was changed. Old links no longer work: share this new one.'
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

/** SPEC §8: the dismissible error banner. */
function ErrorBanner({ message, onDismiss }: { message: string; onDismiss: () => void }) {
  return (
    <div role="alert" className="mb-5 flex items-start gap-3 alert-error px-4 py-3">
      <CircleAlert className="mt-0.5 size-4 shrink-0" />
      <p className="flex-1">{message}</p>
      <button type="button" aria-label="Dismiss error" onClick={onDismiss} className="banner-close">
        <X className="size-4" />
      </button>
    </div>
  );
}
