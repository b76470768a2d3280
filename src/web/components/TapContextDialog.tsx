/**
 * A tap with a note, or counted for an earlier time (docs/product.md#notes-and-earlier-times):
 * opened by a long press on a card's − or +, or from its menu. Loaded when first opened, so the
 * plain tap and the group screen's first load stay as they were.
 */
import { useLingui } from '@lingui/react/macro';
import { useId, useState } from 'react';
import type { AdjustDirection, Counter } from '../../shared/api.js';
import { DEFAULT_ACTIVITY_RETENTION_DAYS, NOTE_MAX_LENGTH } from '../../shared/limits.js';
import { errorText, textInput } from '../lib/ui.js';
import { FormDialog, FormButtons } from './Dialog.js';

const DAY_MS = 86_400_000;

/** A time as a `datetime-local` input shows it: the browser's own time zone, to the minute. */
export function localInputValue(ms: number): string {
  const date = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(
    date.getHours(),
  )}:${pad(date.getMinutes())}`;
}

export function TapContextDialog({
  counter,
  direction: initialDirection,
  directions,
  onCount,
  onClose,
}: {
  counter: Counter;
  direction: AdjustDirection;
  /** The directions this page may count (a tap link may be up or down only). */
  directions: readonly AdjustDirection[];
  /** The taps, their note and the ISO time they are counted for (absent: now). */
  /** `delta`: the value change to show until the server answers (none for an ended period). */
  onCount: (
    direction: AdjustDirection,
    extra: { times: number; delta: number; note?: string; at?: string },
  ) => void;
  onClose: () => void;
}) {
  const { t } = useLingui();
  const titleId = useId();
  const noteId = useId();
  const whenId = useId();
  const timesId = useId();
  const errorId = useId();
  const [direction, setDirection] = useState(initialDirection);
  const [note, setNote] = useState('');
  const [times, setTimes] = useState('1');
  const [earlier, setEarlier] = useState(false);
  const now = Date.now();
  const earliest = Math.max(
    Date.parse(counter.createdAt),
    now - DEFAULT_ACTIVITY_RETENTION_DAYS * DAY_MS,
  );
  const [when, setWhen] = useState(localInputValue(now - DAY_MS));
  const [error, setError] = useState<string | null>(null);
  const step = direction === 'increment' ? counter.incrementStep : counter.decrementStep;

  const count = (close: () => void) => {
    const taps = Number(times);
    if (!Number.isSafeInteger(taps) || taps < 1 || taps > 1_000_000) {
      setError(t`Enter how many taps, from 1 to 1,000,000.`);
      return;
    }
    const extra: { times: number; delta: number; note?: string; at?: string } = {
      times: taps,
      delta: (direction === 'increment' ? step : -step) * taps,
    };
    if (note.trim() !== '') extra.note = note.trim();
    if (earlier) {
      const at = new Date(when).getTime();
      if (!Number.isFinite(at) || at > Date.now() || at < earliest) {
        setError(t`Choose a time between when the counter was made and now.`);
        return;
      }
      extra.at = new Date(at).toISOString();
      // A count for a period that has ended corrects that period: the value stays.
      if (counter.periodStart !== null && at < Date.parse(counter.periodStart)) extra.delta = 0;
    }
    onCount(direction, extra);
    close();
  };

  return (
    <FormDialog titleId={titleId} title={t`Count with a note`} onClose={onClose} onSubmit={count}>
      {(close) => (
        <>
          <fieldset className="mt-4 flex gap-4">
            <legend className="sr-only">{t`Direction`}</legend>
            {directions.map((value) => (
              <label key={value} className="flex items-center gap-2 text-sm">
                <input
                  type="radio"
                  name="direction"
                  checked={direction === value}
                  onChange={() => {
                    setDirection(value);
                  }}
                />
                {value === 'increment'
                  ? t`Add ${counter.incrementStep}`
                  : t`Take away ${counter.decrementStep}`}
              </label>
            ))}
          </fieldset>
          <label htmlFor={timesId} className="mt-4 block text-sm font-medium">
            {t`Taps (each ${step})`}
          </label>
          <input
            id={timesId}
            type="text"
            inputMode="numeric"
            autoComplete="off"
            value={times}
            onChange={(event) => {
              setTimes(event.target.value);
              setError(null);
            }}
            className={`mt-1.5 ${textInput} tabular-nums`}
          />
          <label htmlFor={noteId} className="mt-4 block text-sm font-medium">
            {t`Note`}
          </label>
          <textarea
            id={noteId}
            autoFocus
            rows={2}
            maxLength={NOTE_MAX_LENGTH}
            value={note}
            placeholder={t`table 4, refund…`}
            onChange={(event) => {
              setNote(event.target.value);
            }}
            className={`mt-1.5 ${textInput}`}
          />
          <label className="mt-4 flex items-center gap-2 text-sm">
            <input
              type="checkbox"
              checked={earlier}
              onChange={(event) => {
                setEarlier(event.target.checked);
                setError(null);
              }}
            />
            {t`Count for an earlier time`}
          </label>
          {earlier && (
            <>
              <label htmlFor={whenId} className="mt-3 block text-sm font-medium">
                {t`Counted at`}
              </label>
              <input
                id={whenId}
                type="datetime-local"
                value={when}
                min={localInputValue(earliest)}
                max={localInputValue(now)}
                onChange={(event) => {
                  setWhen(event.target.value);
                  setError(null);
                }}
                aria-invalid={error !== null}
                aria-describedby={error ? errorId : undefined}
                className={`mt-1.5 ${textInput}`}
              />
              <p className="mt-1.5 text-xs text-zinc-600 dark:text-zinc-300">
                {t`A count for a period that has ended corrects that period's total, not the value now.`}
              </p>
            </>
          )}
          {error && (
            <p id={errorId} role="alert" className={`mt-2 ${errorText}`}>
              {error}
            </p>
          )}
          <FormButtons onCancel={close} busy={undefined} />
        </>
      )}
    </FormDialog>
  );
}
