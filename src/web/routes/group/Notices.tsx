/**
 * The group screen when there is no group to show: offline, or access denied. And the notices
 * shown over it: goals reached live (issue 17).
 */
import { useEffect, type ReactNode } from 'react';
import { MESSAGES } from '../../../shared/messages.js';
import { parseGroupName } from '../../../shared/rules.js';
import { CircleAlert, House, Trophy, WifiOff, X } from '../../components/icons/index.js';
import { navigate } from '../../lib/router.js';
import { card, primaryButton } from '../../lib/ui.js';
import type { GoalNotice } from '../../live/groupStore.js';
import { waitingFor } from '../../live/outbox.js';

/**
 * Goals reached by anyone's change, live: every member present sees them for a few seconds
 * (GroupStore removes each after GOAL_NOTICE_MS) and screen readers hear them politely. The
 * region is always there, so that what is added to it is announced.
 */
export function GoalNotices({
  notices,
  onDismiss,
}: {
  notices: readonly GoalNotice[];
  onDismiss: (id: number) => void;
}) {
  return (
    <div
      role="status"
      aria-live="polite"
      className="pointer-events-none fixed inset-x-0 top-16 z-40 flex flex-col items-center gap-2 px-4 sm:top-4"
    >
      {notices.map((notice) => (
        <div
          key={notice.id}
          data-testid="goal-notice"
          className="pointer-events-auto flex w-full max-w-md items-center gap-3 rounded-xl border border-emerald-300 bg-emerald-50 py-2 pr-2 pl-3 text-sm font-medium text-emerald-950 shadow-lg dark:border-emerald-800 dark:bg-emerald-950 dark:text-emerald-50"
        >
          <Trophy className="size-5 shrink-0 text-emerald-700 dark:text-emerald-300" />
          <p className="min-w-0 flex-1">{notice.text}</p>
          <button
            type="button"
            aria-label="Dismiss"
            onClick={() => {
              onDismiss(notice.id);
            }}
            className="inline-flex size-8 shrink-0 items-center justify-center rounded-lg hover:bg-emerald-100 dark:hover:bg-emerald-900"
          >
            <X className="size-4" />
          </button>
        </div>
      ))}
    </div>
  );
}
import { Shell } from './Page.js';

/** The group could not be reached (e.g. reloaded offline): it opens by itself once it can. */
export function OfflineOpening({ rawName }: { rawName: string }) {
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

export function AccessDenied({ message }: { message: string }) {
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
