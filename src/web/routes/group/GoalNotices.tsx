/**
 * The goal notices over the group screen. Not in Notices.tsx: the display imports that module for
 * its Access Denied card and shows no goal notices, so it does not download them, nor
 * ErrorBanner.tsx, whose dismiss button they use.
 */
import { DismissButton } from '../../components/ErrorBanner.js';
import { Trophy } from '../../components/icons/index.js';
import type { GoalNotice } from '../../live/groupStore.js';

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
          className="pointer-events-auto flex w-full max-w-md items-center gap-3 rounded-xl border border-emerald-300 bg-emerald-50 py-2 pe-2 ps-3 text-sm font-medium text-emerald-950 shadow-lg dark:border-emerald-800 dark:bg-emerald-950 dark:text-emerald-50"
        >
          <Trophy className="size-5 shrink-0 text-emerald-700 dark:text-emerald-300" />
          <p className="min-w-0 flex-1">{notice.text}</p>
          <DismissButton
            onClick={() => {
              onDismiss(notice.id);
            }}
            className="inline-flex size-8 shrink-0 items-center justify-center rounded-lg hover:bg-emerald-100 dark:hover:bg-emerald-900"
          />
        </div>
      ))}
    </div>
  );
}
