/**
 * Shown while the server cannot save changes (its database is away: a restart, a failover): a calm
 * note that taps are kept on this device, not an error. It goes by itself once saving resumes.
 */
import { useLingui } from '@lingui/react/macro';
import { changesWaiting } from '../i18n/messages.js';
import { CloudOff } from './icons/index.js';

export function SavingPaused({ waiting }: { waiting: number }) {
  const { t } = useLingui();
  return (
    <div
      role="status"
      aria-live="polite"
      data-testid="saving-paused"
      className="mx-auto mt-3 flex w-full max-w-3xl items-start gap-3 rounded-xl border border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-950 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-50"
    >
      <CloudOff className="mt-0.5 size-5 shrink-0 text-amber-700 dark:text-amber-300" />
      <p className="min-w-0 flex-1">
        {t`Changes are not being saved right now. Your taps are kept on this device and sent as soon as saving resumes.`}
        {waiting > 0 && <span className="ms-1 font-medium">{changesWaiting(waiting)}.</span>}
      </p>
    </div>
  );
}
