/**
 * "Notifications on this device" in the alerts dialog: a switch that gives this browser's push
 * subscription to the group or takes it back (lib/push.ts), and, in words, what stands in its way
 * (a browser without the Push API, notifications blocked for the site).
 */
import { useLingui } from '@lingui/react/macro';
import { useEffect, useId, useState } from 'react';
import type { GroupAuth } from '../lib/api.js';
import {
  blockedMessage,
  isPushOn,
  rememberNotificationLink,
  pushPermission,
  pushProblemWords,
  pushUnsupportedReason,
  turnPushOff,
  turnPushOn,
} from '../lib/push.js';
import { errorText, mutedText } from '../lib/ui.js';
import { Loader } from './icons/index.js';

type DeviceState =
  | { phase: 'checking' }
  | { phase: 'unsupported'; reason: string }
  | { phase: 'ready'; on: boolean };

/** This device's notifications for the group: a switch, and what stands in its way in words. */
export function DeviceNotifications({
  auth,
  hasPushRule,
  onChanged,
}: {
  auth: GroupAuth;
  hasPushRule: boolean;
  /** Switched: the push rules' subscriber counts changed. */
  onChanged: () => void;
}) {
  const { t } = useLingui();
  const id = useId();
  const [device, setDevice] = useState<DeviceState>(() => {
    const reason = pushUnsupportedReason();
    return reason === null ? { phase: 'checking' } : { phase: 'unsupported', reason };
  });
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [blocked, setBlocked] = useState(() => pushPermission() === 'denied');

  useEffect(() => {
    if (device.phase !== 'checking') return;
    let cancelled = false;
    isPushOn(auth.slug).then(
      (on) => {
        // The link its notifications open follows the key this page was opened with.
        if (on) void rememberNotificationLink(auth).catch(() => undefined);
        if (!cancelled) setDevice({ phase: 'ready', on });
      },
      () => {
        if (!cancelled) setDevice({ phase: 'ready', on: false });
      },
    );
    return () => {
      cancelled = true;
    };
  }, [auth, device.phase]);

  const on = device.phase === 'ready' && device.on;

  const toggle = () => {
    setBusy(true);
    setProblem(null);
    (on ? turnPushOff(auth) : turnPushOn(auth)).then(
      () => {
        setBusy(false);
        setBlocked(false);
        setDevice({ phase: 'ready', on: !on });
        onChanged();
      },
      (reason: unknown) => {
        setBusy(false);
        setBlocked(pushPermission() === 'denied');
        setProblem(pushProblemWords(reason));
      },
    );
  };

  let status: string;
  // The reason is worded again on each render: it follows a change of language.
  if (device.phase === 'unsupported') status = pushUnsupportedReason() ?? device.reason;
  else if (device.phase === 'checking') status = t`Checking this device…`;
  else if (on) {
    status = hasPushRule
      ? t`On: this device shows this group’s alerts that go to notifications, even with Tally closed.`
      : t`On. No alert goes to notifications yet: add one with “This browser & other members who turn on notifications”.`;
  } else if (blocked) status = blockedMessage();
  else status = t`Off: turn on to see this group’s alerts that go to notifications on this device.`;

  // Not disabled while blocked: the member may have allowed notifications in the browser's
  // settings since, and a click asks again (a browser that still blocks answers at once).
  const disabled = busy || device.phase !== 'ready';
  return (
    <section
      aria-labelledby={`${id}-title`}
      className="mt-6 border-t border-zinc-200 pt-4 dark:border-zinc-800"
    >
      <div className="flex items-center justify-between gap-3">
        <h3 id={`${id}-title`} className="text-sm font-semibold">
          {t`Notifications on this device`}
        </h3>
        <button
          type="button"
          role="switch"
          aria-checked={on}
          aria-labelledby={`${id}-title`}
          aria-describedby={`${id}-status`}
          disabled={disabled}
          onClick={toggle}
          className="inline-flex shrink-0 items-center gap-2 rounded-full text-sm font-semibold disabled:cursor-not-allowed disabled:opacity-60"
        >
          <span aria-hidden="true" className="min-w-7 text-end">
            {busy ? <Loader className="ms-auto size-4 animate-spin" /> : on ? t`On` : t`Off`}
          </span>
          <span
            aria-hidden="true"
            className={`relative h-6 w-11 rounded-full transition-colors ${on ? 'bg-indigo-600' : 'bg-zinc-400 dark:bg-zinc-600'}`}
          >
            <span
              className={`absolute top-0.5 start-0.5 size-5 rounded-full bg-white shadow transition-transform ${on ? 'translate-x-5 rtl:-translate-x-5' : ''}`}
            />
          </span>
        </button>
      </div>
      <p id={`${id}-status`} className={`mt-1 text-sm ${mutedText}`}>
        {status}
      </p>
      {problem !== null && problem !== status && (
        <p role="alert" className={`mt-2 break-words ${errorText}`}>
          {problem}
        </p>
      )}
    </section>
  );
}
