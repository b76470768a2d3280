/**
 * The group's time zone and first day of the week, which decide when counters with a
 * reset period start over (midnight there; weekly periods start on that day). Saved as one group
 * patch through the store, like the group's name and picture.
 *
 * Also the way to the group's alerts: their dialog opens over this one (which keeps what was
 * typed), from a chunk fetched only when a member asks for it.
 */
import { lazy, Suspense, useId, useState } from 'react';
import type { Counter, Group } from '../../shared/api.js';
import { ianaZoneName } from '../../shared/time-zones.js';
import type { GroupAuth } from '../lib/api.js';
import { timeZoneOptions, WEEKDAYS, zoneLabel } from '../lib/counter-settings.js';
import { errorText, secondaryButton, textInput } from '../lib/ui.js';
import type { GroupPatch } from '../live/ops.js';
import { Dialog, FormButtons } from './Dialog.js';
import { Bell, Loader } from './icons/index.js';

const loadAlertsDialog = () => import('./AlertsDialog.js');
const AlertsDialog = lazy(() => loadAlertsDialog().then((m) => ({ default: m.AlertsDialog })));

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
  const titleId = useId();
  const [alerts, setAlerts] = useState<'closed' | 'loading' | 'open' | 'failed'>('closed');
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
      zone === currentZone ? 'current' : null,
      zone === browserZone ? 'this device' : null,
    ].filter((note) => note !== null);
    return notes.length > 0 ? `${zoneLabel(zone)} (${notes.join(', ')})` : zoneLabel(zone);
  };

  // The chunk is fetched before the dialog mounts, so a failed download (offline) is said here
  // instead of leaving a lazy component to throw.
  const openAlerts = () => {
    setAlerts('loading');
    loadAlertsDialog().then(
      () => {
        setAlerts('open');
      },
      () => {
        setAlerts('failed');
      },
    );
  };

  return (
    <>
      <Dialog labelledBy={titleId} describedBy={`${titleId}-about`} onClose={onClose}>
        {(close) => (
          <form
            noValidate
            onSubmit={(event) => {
              event.preventDefault();
              const patch: GroupPatch = {};
              if (timeZone !== currentZone) patch.timeZone = timeZone;
              if (weekStart !== group.weekStart) patch.weekStart = weekStart;
              if (Object.keys(patch).length > 0) onSave(patch);
              close();
            }}
          >
            <h2 id={titleId} className="text-lg font-semibold">
              Group settings
            </h2>
            <p id={`${titleId}-about`} className="hint mt-1">
              Counters that reset start over at midnight in this time zone; weekly ones on the first
              day of the week.
            </p>
            <label htmlFor={`${titleId}-zone`} className="mt-5 block text-sm font-medium">
              Time zone
            </label>
            <select
              id={`${titleId}-zone`}
              value={timeZone}
              onChange={(event) => {
                setTimeZone(event.currentTarget.value);
              }}
              className={`mt-1.5 ${textInput}`}
            >
              <optgroup label="Suggested">
                {zones.suggested.map((zone) => (
                  <option key={zone} value={zone}>
                    {suggestion(zone)}
                  </option>
                ))}
              </optgroup>
              <optgroup label="All time zones">
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
              First day of the week
            </label>
            <select
              id={`${titleId}-week`}
              value={String(weekStart)}
              onChange={(event) => {
                setWeekStart(Number(event.currentTarget.value));
              }}
              className={`mt-1.5 ${textInput}`}
            >
              {WEEKDAYS.map((day, index) => (
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
                Alerts
              </h3>
              <p className="hint mt-1">
                Tell a webhook, Slack, Discord, ntfy or members’ devices when a counter crosses a
                line.
              </p>
              <button
                type="button"
                aria-haspopup="dialog"
                disabled={alerts === 'loading'}
                onClick={openAlerts}
                className={`${secondaryButton} mt-3`}
              >
                {alerts === 'loading' ? (
                  <Loader className="size-4 animate-spin" />
                ) : (
                  <Bell className="size-4" />
                )}
                Alerts
              </button>
              {alerts === 'failed' && (
                <p role="alert" className={`mt-2 ${errorText}`}>
                  The alerts could not be loaded. Check the connection and try again.
                </p>
              )}
            </section>
            <FormButtons onCancel={close} />
          </form>
        )}
      </Dialog>
      {alerts === 'open' && (
        <Suspense fallback={null}>
          <AlertsDialog
            auth={auth}
            counters={counters}
            onClose={() => {
              setAlerts('closed');
            }}
          />
        </Suspense>
      )}
    </>
  );
}
