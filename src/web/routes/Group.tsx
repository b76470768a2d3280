import { CircleAlert, House, Loader, Plus, Share, WifiOff, X, icon } from '../components/icons.js';
import { lazy, Suspense, useEffect, useState, useSyncExternalStore, type ReactNode } from 'react';
import { MESSAGES } from '../../shared/messages.js';
import { parseGroupName, sanitizeText } from '../../shared/rules.js';
import { Avatar } from '../components/Avatar.js';
import { CopyButton } from '../components/CopyButton.js';
import { CounterCard, loadExtras, prefetchCardEditors } from '../components/CounterCard.js';
import { Footer } from '../components/Footer.js';
import { InlineEdit } from '../components/InlineEdit.js';
import { Logo } from '../components/Logo.js';
import { whenIdle } from '../lib/idle.js';
import type { LiveStatus } from '../live/connection.js';
import { GroupStore } from '../live/groupStore.js';
import { waitingFor } from '../live/outbox.js';
import { ApiRequestError } from '../lib/api.js';
import { takeOpening } from '../lib/opening.js';
import { groupUrl, navigate } from '../lib/router.js';
import { ensureGuestName, ensureMemberId, GUEST_NAME_KEY, saveGuestName } from '../lib/storage.js';
import type { PresenceMember } from '../../shared/protocol.js';
import { card, mutedText, primaryButton, secondaryButton } from '../lib/ui.js';

const loadProfilePictureDialog = () => import('../components/ProfilePictureDialog.js');
const ProfilePictureDialog = lazy(() =>
  loadProfilePictureDialog().then((m) => ({ default: m.ProfilePictureDialog })),
);
// Issue 7: the Activity button and its panel, the undo toast and Ctrl+Z: right after first paint.
const GroupTools = lazy(() => loadExtras().then((m) => ({ default: m.GroupTools })));
// The dialog's own chunk is prefetched when idle; the QR encoder it imports loads only on opening.
const loadShareDialog = () => import('../components/ShareDialog.js');
const ShareDialog = lazy(() => loadShareDialog().then((m) => ({ default: m.ShareDialog })));

const QrCodeIcon = icon(
  'M3 3h6v6H3zM15 3h6v6h-6zM3 15h6v6H3zM15 15h2v2h-2zm4 4h2v2h-2zM13 3v2m0 4v4H3m18 0h-4',
);

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

function Shell({ children }: { children: ReactNode }) {
  return (
    <div className="flex min-h-dvh flex-col">
      <TopBar />
      <main className="page-main">{children}</main>
      <Footer />
    </div>
  );
}

function TopBar() {
  return (
    <div className="top-bar">
      <a
        href="/"
        onClick={(event) => {
          if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
          event.preventDefault();
          navigate('/');
        }}
        className="brand"
      >
        <Logo size={28} />
        Tally
      </a>
    </div>
  );
}

/** The group could not be reached (e.g. reloaded offline): it opens by itself once it can. */
function OfflineOpening({ rawName }: { rawName: string }) {
  const parsed = parseGroupName(rawName);
  const waiting = parsed.ok ? waitingFor(parsed.value) : 0;
  useEffect(() => {
    document.title = `Offline · Tally`;
  }, []);
  return (
    <NoticeScreen tone="amber" Icon={WifiOff} title="Offline">
      <p role="status" className="mt-2 text-zinc-700 dark:text-zinc-300">
        {MESSAGES.offlineOpening}
      </p>
      {waiting > 0 && (
        <p className="mt-3 text-sm font-medium text-amber-800 dark:text-amber-300">
          {MESSAGES.changesWaiting(waiting)}
        </p>
      )}
    </NoticeScreen>
  );
}

function AccessDenied({ message }: { message: string }) {
  return (
    <NoticeScreen tone="red" Icon={CircleAlert} title="Access Denied">
      <p role="alert" className="mt-2 text-zinc-700 dark:text-zinc-300">
        {message}
      </p>
      <button
        type="button"
        onClick={() => {
          navigate('/');
        }}
        className={`${primaryButton} mt-6`}
      >
        <House className="size-4" />
        Go Home
      </button>
    </NoticeScreen>
  );
}

/** A whole screen that is one centred card: an icon in a coloured disc, a title, then `children`. */
function NoticeScreen({
  tone,
  Icon,
  title,
  children,
}: {
  tone: 'amber' | 'red';
  Icon: (props: { className?: string }) => ReactNode;
  title: string;
  children: ReactNode;
}) {
  return (
    <Shell>
      <div className="flex flex-1 items-center justify-center py-10">
        <div className={`${card} w-full max-w-md p-6 text-center sm:p-8`}>
          <div
            className={`badge-icon ${tone === 'red' ? 'badge-icon-red' : 'badge-icon-amber'} mx-auto`}
          >
            <Icon className="size-6" />
          </div>
          <h1 className="mt-4 text-2xl font-bold tracking-tight">{title}</h1>
          {children}
        </div>
      </div>
    </Shell>
  );
}

function GroupView({ store }: { store: GroupStore }) {
  const state = useSyncExternalStore(store.subscribe, store.getState);
  const { group, counters } = state;
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
      void loadProfilePictureDialog();
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
      <header className="group-header">
        <div className="flex min-w-0 flex-1 items-center gap-4">
          {readOnly ? (
            <Avatar
              url={group.profileImageUrl}
              name={group.displayName}
              size={64}
              className="shrink-0 shadow-sm"
            />
          ) : (
            <button
              type="button"
              aria-label="Change profile picture"
              title="Change profile picture"
              onClick={() => {
                setEditingPicture(true);
              }}
              className="group/avatar relative size-16 shrink-0 rounded-full"
            >
              <Avatar
                url={group.profileImageUrl}
                name={group.displayName}
                size={64}
                className="shadow-sm"
              />
            </button>
          )}
          <div className="min-w-0 flex-1">
            <h1 className="group-title">
              <InlineEdit
                value={group.displayName}
                label="Group name"
                placeholder="Group Name"
                readOnly={readOnly}
                onCommit={(text) => {
                  const displayName = sanitizeText(text);
                  // A blank display name is refused by the server: keep the current one.
                  if (displayName !== '' && displayName !== group.displayName) {
                    store.updateGroup({ displayName });
                  }
                }}
              />
            </h1>
            <div className="mt-0.5 flex flex-wrap items-center gap-x-3 gap-y-1">
              <GuestName store={store} />
              <ConnectionBadge status={state.status} />
              {showPending && (
                <span role="status" className="offline-badge" data-testid="changes-waiting">
                  {MESSAGES.changesWaiting(state.pendingCount)}
                </span>
              )}
              {readOnly && (
                <span className="view-only-badge" title={MESSAGES.readOnly}>
                  View only
                </span>
              )}
              <HereNow members={state.members} />
            </div>
          </div>
        </div>
        <div className="group-actions">
          <Suspense fallback={<span className="activity-btn" />}>
            <GroupTools store={store} readOnly={readOnly} />
          </Suspense>
          <CopyButton
            text={shareUrl}
            label="Share URL"
            Icon={Share}
            className="flex-auto sm:flex-none"
          />
          <button
            type="button"
            aria-label="Show QR code"
            title="Show QR code"
            aria-haspopup="dialog"
            onClick={() => {
              setSharing(true);
            }}
            className={`${secondaryButton} px-3`}
          >
            <QrCodeIcon className="size-4" />
          </button>
          {!readOnly && (
            <button
              type="button"
              onClick={addCounter}
              className={`${primaryButton} flex-auto sm:flex-none`}
            >
              <Plus className="size-4" />
              Add Counter
            </button>
          )}
        </div>
      </header>

      {state.error !== null && (
        <div role="alert" className="mb-5 flex items-start gap-3 alert-error px-4 py-3">
          <CircleAlert className="mt-0.5 size-4 shrink-0" />
          <p className="flex-1">{state.error}</p>
          <button
            type="button"
            aria-label="Dismiss error"
            onClick={() => {
              store.dismissError();
            }}
            className="banner-close"
          >
            <X className="size-4" />
          </button>
        </div>
      )}

      {counters === null ? (
        state.countersFailed ? (
          <LoadFailed
            onRetry={() => {
              store.reloadCounters();
            }}
          />
        ) : (
          // As tall as the screen: the footer waits below the fold instead of jumping down when
          // the grid arrives (a layout shift Lighthouse counted on phones, BENCHMARKS.md).
          <Pending tall>{MESSAGES.loadingCounters}</Pending>
        )
      ) : counters.length === 0 ? (
        <EmptyState onCreate={readOnly ? null : addCounter} />
      ) : (
        <ul
          aria-label="Counters"
          className="grid grid-cols-1 gap-4 pb-6 md:grid-cols-2 lg:grid-cols-3"
        >
          {counters.map((counter) => (
            <li key={counter.id} className="min-w-0">
              <CounterCard
                counter={counter}
                store={store}
                readOnly={readOnly}
                unsent={showPending && state.pendingCounters.has(counter.id)}
              />
            </li>
          ))}
        </ul>
      )}

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

/** 'Loading group...' and 'Loading counters...' (SPEC §2). */
function Pending({ children, tall = false }: { children: ReactNode; tall?: boolean }) {
  const place = tall ? 'min-h-dvh items-start pt-16' : 'items-center';
  return (
    <div
      role="status"
      className={`flex flex-1 justify-center gap-3 py-10 text-lg ${place} ${mutedText}`}
    >
      <Loader className="size-5 animate-spin" />
      {children}
    </div>
  );
}

/** The list did not load (the banner above says why) and nothing has filled it since. */
function LoadFailed({ onRetry }: { onRetry: () => void }) {
  return (
    <div className="empty-state">
      <p className={mutedText}>The counters could not be loaded.</p>
      <button type="button" onClick={onRetry} className={`${secondaryButton} mt-4`}>
        Try again
      </button>
    </div>
  );
}

function EmptyState({ onCreate }: { onCreate: (() => void) | null }) {
  return (
    <div className="empty-state">
      <div className="badge-icon badge-icon-indigo">
        <Plus className="size-6" />
      </div>
      <h2 className="mt-4 text-lg font-semibold">{MESSAGES.noCountersTitle}</h2>
      <p className={`mt-1 ${mutedText}`}>{MESSAGES.noCountersBody}</p>
      {onCreate && (
        <button type="button" onClick={onCreate} className={`${primaryButton} mt-6`}>
          <Plus className="size-4" />
          Create First Counter
        </button>
      )}
    </div>
  );
}

/** SPEC §2/§5: 'Signed in as {name}', edited inline; a blank or unchanged name is not saved. */
function GuestName({ store }: { store: GroupStore }) {
  const [name, setName] = useState(ensureGuestName);
  // Renamed in another tab of this browser: this tab, and its entry in 'Here now', follow.
  useEffect(() => {
    const follow = (event: StorageEvent) => {
      const next = event.key === GUEST_NAME_KEY ? event.newValue?.trim() : undefined;
      if (!next) return;
      setName(next);
      store.renameMember(next);
    };
    window.addEventListener('storage', follow);
    return () => {
      window.removeEventListener('storage', follow);
    };
  }, [store]);
  return (
    <p className={`flex min-w-0 items-center gap-1 text-sm ${mutedText}`}>
      <span className="shrink-0">Signed in as</span>
      <InlineEdit
        value={name}
        label="Your name"
        placeholder="Your name"
        maxLength={100}
        onCommit={(text) => {
          const next = text.trim();
          if (next === '' || next === name) return;
          saveGuestName(next);
          setName(next);
          store.renameMember(next);
        }}
        className="font-medium text-zinc-900 dark:text-zinc-100"
      />
    </p>
  );
}

function ConnectionBadge({ status }: { status: LiveStatus }) {
  if (status === 'offline') {
    return (
      <span role="status" className="offline-badge">
        <WifiOff className="size-3.5" />
        Offline · reconnecting…
      </span>
    );
  }
  return (
    <span
      role="status"
      className={`inline-flex items-center gap-1.5 text-xs font-medium ${mutedText}`}
    >
      <span
        aria-hidden="true"
        className={`size-2 rounded-full ${status === 'live' ? 'bg-emerald-500' : 'animate-pulse bg-zinc-400'}`}
      />
      {status === 'live' ? 'Live' : 'Connecting…'}
    </span>
  );
}

/** How many people 'Here now' shows before '+N'. */
const HERE_NOW_MAX = 4;

/** Presence: who has the group open now, as initials (names in the tooltip and for screen readers). */
function HereNow({ members }: { members: readonly PresenceMember[] }) {
  if (members.length === 0) return null;
  const shown = members.slice(0, HERE_NOW_MAX);
  const more = members.length - shown.length;
  const names = members.map((m) => m.name || 'Someone').join(', ');
  return (
    <div
      role="group"
      aria-label={`Here now: ${names}`}
      title={`Here now: ${names}`}
      data-testid="here-now"
      className="flex items-center gap-1.5"
    >
      <span className={`text-xs font-medium ${mutedText}`}>Here now</span>
      <ul className="flex -space-x-1.5">
        {shown.map((m) => (
          <li
            key={m.id}
            title={m.name}
            data-member={m.name}
            className="flex size-6 items-center justify-center rounded-full bg-indigo-600 text-[10px] font-semibold text-white ring-2 ring-white dark:ring-zinc-950"
          >
            <span aria-hidden="true">{initials(m.name)}</span>
            <span className="sr-only">{m.name}</span>
          </li>
        ))}
        {more > 0 && (
          <li
            title={members
              .slice(HERE_NOW_MAX)
              .map((m) => m.name)
              .join(', ')}
            className="flex size-6 items-center justify-center rounded-full bg-zinc-300 text-[10px] font-semibold text-zinc-800 ring-2 ring-white dark:bg-zinc-700 dark:text-zinc-100 dark:ring-zinc-950"
          >
            +{more}
          </li>
        )}
      </ul>
    </div>
  );
}

function initials(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return '?';
  const first = words[0] ?? '';
  const last = words.length > 1 ? (words[words.length - 1] ?? '') : '';
  return (first.charAt(0) + last.charAt(0)).toUpperCase() || '?';
}
