/**
 * The group's time zone and first day of the week, which decide when counters with a
 * reset period start over (midnight there; weekly periods start on that day). Saved as one group
 * patch through the store, like the group's name and picture.
 *
 * Also the way to the group's alerts and to importing a file: their dialogs open over this one
 * (which keeps what was typed), each from a chunk fetched only when a member asks for it.
 */
import { useLingui } from '@lingui/react/macro';
import { lazy, Suspense, useId, useState, type ReactNode } from 'react';
import type { Counter, Group } from '../../shared/api.js';
import { ianaZoneName } from '../../shared/time-zones.js';
import type { GroupAuth } from '../lib/api.js';
import { timeZoneOptions, weekdayNames, zoneLabel } from '../lib/counter-settings.js';
import { errorText, secondaryButton, textInput } from '../lib/ui.js';
import type { GroupPatch } from '../live/ops.js';
import { FormDialog, FormButtons } from './Dialog.js';
import { ArrowDownToLine, Bell, Loader } from './icons/index.js';

const loadAlertsDialog = () => import('./AlertsDialog.js');
const AlertsDialog = lazy(() => loadAlertsDialog().then((m) => ({ default: m.AlertsDialog })));
const loadImportDialog = () => import('./ImportDialog.js');
const ImportDialog = lazy(() => loadImportDialog().then((m) => ({ default: m.ImportDialog })));

/**
 * Every zone this browser knows, under current IANA names only: Chromium lists Asia/Calcutta,
 * Asia/Saigon and Europe/Kiev, names the IANA database replaced years ago.
 */
function supportedZones(): string[] {
  try {
    return [...new Set(Intl.supportedValuesOf('timeZone').map(ianaZoneName))];
  } catch {
    return [];
  }
}

/**
 * A dialog whose chunk is fetched when a member first asks for it: fetched before it mounts, so a
 * failed download (offline) is said in this dialog instead of leaving a lazy component to throw.
 */
function useLazyDialog(load: () => Promise<unknown>) {
  const [state, setState] = useState<'closed' | 'loading' | 'open' | 'failed'>('closed');
  const open = () => {
    setState('loading');
    load().then(
      () => {
        setState('open');
      },
      () => {
        setState('failed');
      },
    );
  };
  const close = () => {
    setState('closed');
  };
  return { state, open, close };
}

/** The button that opens a lazily loaded dialog, showing the download while it lasts. */
function DialogOpener({
  dialog,
  icon,
  label,
}: {
  dialog: ReturnType<typeof useLazyDialog>;
  icon: ReactNode;
  label: string;
}) {
  return (
    <button
      type="button"
      aria-haspopup="dialog"
      disabled={dialog.state === 'loading'}
      onClick={dialog.open}
      className={`${secondaryButton} mt-3`}
    >
      {dialog.state === 'loading' ? <Loader className="size-4 animate-spin" /> : icon}
      {label}
    </button>
  );
}

export function GroupSettingsDialog({
  group,
  auth,
  counters,
  onSave,
  onClose,
}: {
  group: Group;
  /** The group and key the alerts dialog makes its requests with. */
  auth: GroupAuth;
  /** The group's counters, named in its alerts. */
  counters: readonly Counter[];
  /** Called once with what changed (never with an empty patch). */
  onSave: (patch: GroupPatch) => void;
  onClose: () => void;
}) {
  const { t } = useLingui();
  const titleId = useId();
  const alerts = useLazyDialog(loadAlertsDialog);
  const importing = useLazyDialog(loadImportDialog);
  // A group saved under an older name (Asia/Calcutta) shows, and keeps, its current name.
  const currentZone = ianaZoneName(group.timeZone);
  const [timeZone, setTimeZone] = useState(currentZone);
  const [weekStart, setWeekStart] = useState(group.weekStart);
  const [browserZone] = useState(() =>
    ianaZoneName(Intl.DateTimeFormat().resolvedOptions().timeZone),
  );
  const [zones] = useState(() => timeZoneOptions(currentZone, browserZone, supportedZones()));

  const suggestion = (zone: string) => {
    const notes = [
      zone === currentZone ? t`current` : null,
      zone === browserZone ? t`this device` : null,
    ].filter((note) => note !== null);
    return notes.length > 0 ? `${zoneLabel(zone)} (${notes.join(', ')})` : zoneLabel(zone);
  };

  return (
    <>
      <FormDialog
        titleId={titleId}
        title={t`Group settings`}
        describedBy={`${titleId}-about`}
        onClose={onClose}
        onSubmit={(close) => {
          const patch: GroupPatch = {};
          if (timeZone !== currentZone) patch.timeZone = timeZone;
          if (weekStart !== group.weekStart) patch.weekStart = weekStart;
          if (Object.keys(patch).length > 0) onSave(patch);
          close();
        }}
      >
        {(close) => (
          <>
            <p id={`${titleId}-about`} className="hint mt-1">
              {t`Counters that reset start over at midnight in this time zone; weekly ones on the first day of the week.`}
            </p>
            <label htmlFor={`${titleId}-zone`} className="mt-5 block text-sm font-medium">
              {t`Time zone`}
            </label>
            <select
              id={`${titleId}-zone`}
              value={timeZone}
              onChange={(event) => {
                setTimeZone(event.currentTarget.value);
              }}
              className={`mt-1.5 ${textInput}`}
            >
              <optgroup label={t`Suggested`}>
                {zones.suggested.map((zone) => (
                  <option key={zone} value={zone}>
                    {suggestion(zone)}
                  </option>
                ))}
              </optgroup>
              <optgroup label={t`All time zones`}>
                {zones.all
                  .filter((zone) => !zones.suggested.includes(zone))
                  .map((zone) => (
                    <option key={zone} value={zone}>
                      {zoneLabel(zone)}
                    </option>
                  ))}
              </optgroup>
            </select>
            <label htmlFor={`${titleId}-week`} className="mt-4 block text-sm font-medium">
              {t`First day of the week`}
            </label>
            <select
              id={`${titleId}-week`}
              value={String(weekStart)}
              onChange={(event) => {
                setWeekStart(Number(event.currentTarget.value));
              }}
              className={`mt-1.5 ${textInput}`}
            >
              {weekdayNames().map((day, index) => (
                <option key={day} value={String(index + 1)}>
                  {day}
                </option>
              ))}
            </select>
            <section
              aria-labelledby={`${titleId}-alerts`}
              className="mt-5 border-t border-zinc-200 pt-4 dark:border-zinc-800"
            >
              <h3 id={`${titleId}-alerts`} className="text-sm font-medium">
                {t`Alerts`}
              </h3>
              <p className="hint mt-1">
                {t`Tell a webhook, Slack, Discord, ntfy or members’ devices when a counter crosses a line.`}
              </p>
              <DialogOpener dialog={alerts} icon={<Bell className="size-4" />} label={t`Alerts`} />
              {alerts.state === 'failed' && (
                <p role="alert" className={`mt-2 ${errorText}`}>
                  {t`The alerts could not be loaded. Check the connection and try again.`}
                </p>
              )}
            </section>
            <section
              aria-labelledby={`${titleId}-import`}
              className="mt-5 border-t border-zinc-200 pt-4 dark:border-zinc-800"
            >
              <h3 id={`${titleId}-import`} className="text-sm font-medium">
                {t`Import`}
              </h3>
              <p className="hint mt-1">
                {t`Bring in counters and their log from Tally, BetterCounter or Simple Counter.`}
              </p>
              <DialogOpener
                dialog={importing}
                icon={<ArrowDownToLine className="size-4" />}
                label={t`Import from a file`}
              />
              {importing.state === 'failed' && (
                <p role="alert" className={`mt-2 ${errorText}`}>
                  {t`The import could not be loaded. Check the connection and try again.`}
                </p>
              )}
            </section>
            <FormButtons onCancel={close} />
          </>
        )}
      </FormDialog>
      {importing.state === 'open' && (
        <Suspense fallback={null}>
          <ImportDialog auth={auth} onClose={importing.close} />
        </Suspense>
      )}
      {alerts.state === 'open' && (
        <Suspense fallback={null}>
          <AlertsDialog auth={auth} counters={counters} onClose={alerts.close} />
        </Suspense>
      )}
    </>
  );
}
