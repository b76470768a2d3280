/**
 * The group's time zone and first day of the week, which decide when counters with a
 * reset period start over (midnight there; weekly periods start on that day). Saved as one group
 * patch through the store, like the group's name and picture.
 */
import { useId, useState } from 'react';
import type { Group } from '../../shared/api.js';
import { ianaZoneName } from '../../shared/time-zones.js';
import { timeZoneOptions, WEEKDAYS, zoneLabel } from '../lib/counter-settings.js';
import { textInput } from '../lib/ui.js';
import type { GroupPatch } from '../live/ops.js';
import { Dialog, FormButtons } from './Dialog.js';

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
  onSave,
  onClose,
}: {
  group: Group;
  /** Called once with what changed (never with an empty patch). */
  onSave: (patch: GroupPatch) => void;
  onClose: () => void;
}) {
  const titleId = useId();
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

  return (
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
          <FormButtons onCancel={close} />
        </form>
      )}
    </Dialog>
  );
}
