/**
 * The group screen when there is no group to show: offline, or access denied (the display shows
 * the same Access Denied card).
 */
import { useLingui } from '@lingui/react/macro';
import { useEffect, type ReactNode } from 'react';
import { checkGroupName } from '../../../shared/rules.js';
import { changesWaiting } from '../../i18n/messages.js';
import { CircleAlert, House, WifiOff } from '../../components/icons/index.js';
import { navigate } from '../../lib/router.js';
import { card, primaryButton } from '../../lib/ui.js';
import { waitingFor } from '../../live/outbox.js';
import { Shell } from './Page.js';

/** The group could not be reached (e.g. reloaded offline): it opens by itself once it can. */
export function OfflineOpening({ rawName }: { rawName: string }) {
  const { t } = useLingui();
  const parsed = checkGroupName(rawName);
  const waiting = parsed.ok ? waitingFor(parsed.value) : 0;
  const title = t`Offline`;
  useEffect(() => {
    document.title = `${title} · Tally`;
  }, [title]);
  return (
    <NoticeScreen tone="amber" Icon={WifiOff} title={title}>
      <p role="status" className="mt-2 text-zinc-700 dark:text-zinc-300">
        {t`You're offline. This group opens as soon as the connection is back.`}
      </p>
      {waiting > 0 && (
        <p className="mt-3 text-sm font-medium text-amber-800 dark:text-amber-300">
          {changesWaiting(waiting)}
        </p>
      )}
    </NoticeScreen>
  );
}

export function AccessDenied({ message }: { message: string }) {
  const { t } = useLingui();
  return (
    <NoticeScreen tone="red" Icon={CircleAlert} title={t`Access Denied`}>
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
        {t`Go Home`}
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
