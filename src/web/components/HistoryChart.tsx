/**
 * A counter's value over its whole life (docs/product.md#charts), drawn by hand in SVG: a step line
 * (a value holds until the next change), its axes and labels, in pixel units measured from the
 * dialog so text stays readable from 360 px phones to desktops, in both themes; beneath it the
 * counter's changes with a note or counted for an earlier time, each marked on the chart's time
 * axis. No charting library: this whole chunk is smaller than any of them.
 */
import { t } from '@lingui/core/macro';
import { useLingui } from '@lingui/react/macro';
import { useEffect, useId, useRef, useState } from 'react';
import type { ActivityEntry, HistoryPoint } from '../../shared/activity.js';
import type { Counter } from '../../shared/api.js';
import type { CounterPeriod } from '../../shared/activity.js';
import { fetchCounterHistory, fetchCounterPeriods } from '../lib/activity.js';
import { ApiRequestError } from '../lib/api.js';
import { weekdayNames } from '../lib/counter-settings.js';
import { chartMarks } from '../lib/notes.js';
import { periodRows, RESET_KIND, timeOfDay, dayLabel, type PeriodKind } from '../lib/periods.js';
import type { GroupStore } from '../live/groupStore.js';
import { Dialog } from './Dialog.js';
import { NotedChanges } from './NotedChanges.js';
import { Loader, X } from './icons/index.js';
import { dateLocale, formatNumber } from '../i18n/format.js';

/** Points asked for: enough for a smooth line, few enough for a small answer. */
export const CHART_POINTS = 200;
/** Ended periods listed: over three months of days, a year of weeks. */
export const PERIODS_LISTED = 100;
const HEIGHT = 240;
const MARGIN = { top: 12, right: 16, bottom: 28 };

/** About `count` round tick values covering [min, max] (1, 2 or 5 times a power of ten). */
export function niceTicks(min: number, max: number, count = 5): number[] {
  if (max === min) return [min];
  const rough = (max - min) / count;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = Math.max(1, ([1, 2, 5, 10].find((m) => m * power >= rough) ?? 10) * power);
  const ticks: number[] = [];
  for (let tick = Math.ceil(min / step) * step; tick <= max; tick += step) ticks.push(tick);
  return ticks;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const TIME_STEPS = [
  MINUTE,
  5 * MINUTE,
  15 * MINUTE,
  30 * MINUTE,
  HOUR,
  3 * HOUR,
  6 * HOUR,
  12 * HOUR,
  DAY,
  2 * DAY,
  7 * DAY,
  14 * DAY,
  30 * DAY,
  91 * DAY,
  182 * DAY,
  365 * DAY,
];

/** The tick spacing, ms, that puts about `count` ticks between `from` and `to`. */
export function timeStep(from: number, to: number, count = 4): number {
  const span = Math.max(1, to - from);
  return TIME_STEPS.find((candidate) => span / candidate <= count) ?? 365 * DAY;
}

/** Round local times between `from` and `to` (epoch ms), `step` apart. */
export function timeTicks(from: number, to: number, step: number): number[] {
  // Aligned to local time, so ticks fall on whole local hours and midnights.
  const offset = new Date(from).getTimezoneOffset() * MINUTE;
  const ticks: number[] = [];
  for (let t = Math.ceil((from - offset) / step) * step + offset; t <= to; t += step) ticks.push(t);
  return ticks;
}

/**
 * A tick's label: the time of day between midnights ("14:00"), the date at midnight and for
 * steps of days ("21 Nov"), month and year beyond a year ("Nov 2025").
 */
export function timeLabel(t: number, step: number, span: number): string {
  const date = new Date(t);
  const midnight = date.getHours() === 0 && date.getMinutes() === 0;
  if (step < DAY && !midnight) {
    return date.toLocaleTimeString(dateLocale(), { hour: '2-digit', minute: '2-digit' });
  }
  if (span <= 400 * DAY)
    return date.toLocaleDateString(dateLocale(), { day: 'numeric', month: 'short' });
  return date.toLocaleDateString(dateLocale(), { month: 'short', year: 'numeric' });
}

const fullTime = (t: number) =>
  new Date(t).toLocaleString(dateLocale(), { dateStyle: 'medium', timeStyle: 'short' });

export function HistoryChart({
  counter,
  store,
  onClose,
}: {
  counter: Counter;
  store: GroupStore;
  onClose: () => void;
}) {
  const { t } = useLingui();
  const titleId = useId();
  const notesId = useId();
  const [points, setPoints] = useState<HistoryPoint[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [noted, setNoted] = useState<readonly ActivityEntry[]>([]);
  const { id } = counter;
  const name = counter.name || t`Counter Name`;

  useEffect(() => {
    let current = true;
    fetchCounterHistory(store, id, CHART_POINTS).then(
      (history) => {
        if (current) setPoints(history.points);
      },
      (reason: unknown) => {
        if (!current) return;
        setError(
          reason instanceof ApiRequestError && reason.serverMessage
            ? reason.serverMessage
            : t`The history could not be loaded.`,
        );
      },
    );
    return () => {
      current = false;
    };
  }, [store, id]);

  return (
    <Dialog labelledBy={titleId} onClose={onClose} className="sm:max-w-2xl">
      {(close) => (
        <>
          <div className="flex items-start justify-between gap-3">
            <h2 id={titleId} className="min-w-0 text-lg font-semibold break-words">
              {t`History of ${name}`}
            </h2>
            <button
              type="button"
              aria-label={t`Close`}
              onClick={close}
              className="icon-btn -mt-1.5 -me-2"
            >
              <X className="size-5" />
            </button>
          </div>
          {error !== null ? (
            <p role="alert" className="mt-4 error-text">
              {error}
            </p>
          ) : points === null ? (
            <p role="status" className="muted mt-4 flex h-60 items-center justify-center gap-2">
              <Loader className="size-4 animate-spin" />
              {t`Loading history…`}
            </p>
          ) : (
            <Chart points={points} counter={counter} noted={noted} />
          )}
          <section
            aria-labelledby={notesId}
            className="mt-5 border-t border-zinc-200 pt-4 dark:border-zinc-800"
          >
            <h3 id={notesId} className="text-base font-semibold">
              {t`Notes`}
            </h3>
            <p className="muted mt-0.5 text-xs">
              {t`Changes with a note or counted for an earlier time, newest first; the chart marks them on its time axis.`}
            </p>
            <NotedChanges
              store={store}
              counterId={id}
              showCounter={false}
              label={t`Notes on ${name}, newest first`}
              onShown={setNoted}
            />
          </section>
          {counter.reset !== null && <Periods counter={counter} store={store} />}
        </>
      )}
    </Dialog>
  );
}

function Chart({
  points: history,
  counter,
  noted,
}: {
  points: HistoryPoint[];
  counter: Counter;
  /** The noted changes listed beneath: a mark each on the time axis. */
  noted: readonly ActivityEntry[];
}) {
  const { t } = useLingui();
  const box = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const observer = new ResizeObserver(() => {
      setWidth(element.clientWidth);
    });
    observer.observe(element);
    return () => {
      observer.disconnect();
    };
  }, []);

  // The value shown on the card now ends the line: the chart never lags the card.
  const now = Date.now();
  const points = [...history.filter((point) => point.t <= now), { t: now, v: counter.value }];
  const first = points[0] ?? { t: now, v: counter.value };
  const values = points.map((point) => point.v);
  const low = Math.min(...values);
  const high = Math.max(...values);
  const yTicks = niceTicks(Math.min(low, 0 <= low && low <= high / 4 ? 0 : low), high);
  const yMin = Math.min(low, yTicks[0] ?? low);
  const yMax = Math.max(high, yTicks.at(-1) ?? high);
  const from = first.t;
  const to = Math.max(now, from + MINUTE);
  const span = to - from;

  const labelWidth = Math.max(...yTicks.map((tick) => formatNumber(tick).length)) * 7;
  const left = labelWidth + 14;
  const plotWidth = Math.max(1, width - left - MARGIN.right);
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = (t: number) => left + ((t - from) / span) * plotWidth;
  const y = (v: number) =>
    MARGIN.top + (yMax === yMin ? plotHeight / 2 : (1 - (v - yMin) / (yMax - yMin)) * plotHeight);

  let line = `M${x(first.t).toFixed(1)} ${y(first.v).toFixed(1)}`;
  for (const point of points.slice(1)) {
    line += `H${x(point.t).toFixed(1)}V${y(point.v).toFixed(1)}`;
  }
  line += `H${x(to).toFixed(1)}`;
  const baseline = y(yMin).toFixed(1);
  const area = `${line}V${baseline}H${x(from).toFixed(1)}Z`;
  const step = timeStep(from, to, Math.max(2, Math.floor(plotWidth / 90)));
  const xTicks = timeTicks(from, to, step);

  const marks = chartMarks(noted, from, to);
  const name = counter.name || t`Counter`;
  const since = fullTime(from);
  const started = formatNumber(first.v);
  const current = formatNumber(counter.value);
  const lowest = formatNumber(low);
  const highest = formatNumber(high);
  const summary = t`${name} over time, from ${since} to now: started at ${started}, now ${current}, lowest ${lowest}, highest ${highest}.`;

  return (
    <>
      <div ref={box} className="mt-4 w-full">
        {width > 0 && (
          <svg
            width={width}
            height={HEIGHT}
            role="img"
            aria-label={summary}
            className="block overflow-visible text-[11px] tabular-nums"
          >
            {yTicks.map((tick) => (
              <g key={tick}>
                <line
                  x1={left}
                  x2={left + plotWidth}
                  y1={y(tick)}
                  y2={y(tick)}
                  className="stroke-zinc-200 dark:stroke-zinc-800"
                  strokeDasharray={tick === 0 ? undefined : '3 3'}
                />
                <text
                  x={left - 8}
                  y={y(tick)}
                  dy="0.32em"
                  textAnchor="end"
                  className="fill-zinc-600 dark:fill-zinc-400"
                >
                  {formatNumber(tick)}
                </text>
              </g>
            ))}
            <line
              x1={left}
              x2={left + plotWidth}
              y1={MARGIN.top + plotHeight}
              y2={MARGIN.top + plotHeight}
              className="stroke-zinc-300 dark:stroke-zinc-700"
            />
            {xTicks.map((tick) => (
              <g key={tick}>
                <line
                  x1={x(tick)}
                  x2={x(tick)}
                  y1={MARGIN.top + plotHeight}
                  y2={MARGIN.top + plotHeight + 4}
                  className="stroke-zinc-300 dark:stroke-zinc-700"
                />
                <text
                  x={x(tick)}
                  y={HEIGHT - 8}
                  textAnchor="middle"
                  className="fill-zinc-600 dark:fill-zinc-400"
                >
                  {timeLabel(tick, step, span)}
                </text>
              </g>
            ))}
            <path d={area} className="fill-indigo-500/10 dark:fill-indigo-400/15" />
            <path
              d={line}
              fill="none"
              strokeWidth={2}
              strokeLinejoin="round"
              className="stroke-indigo-600 dark:stroke-indigo-400"
            />
            <circle
              cx={x(to)}
              cy={y(counter.value)}
              r={3.5}
              className="fill-indigo-600 dark:fill-indigo-400"
            />
            {marks.map((mark) => (
              <path
                key={mark}
                data-testid="note-mark"
                d={`M${x(mark).toFixed(1)} ${MARGIN.top + plotHeight - 1}l-4 -7h8z`}
                className="fill-amber-500 stroke-white dark:fill-amber-400 dark:stroke-zinc-900"
              />
            ))}
          </svg>
        )}
      </div>
      <dl className="muted mt-3 flex flex-wrap gap-x-5 gap-y-1 text-sm">
        <Fact label={t`Now`} value={counter.value} />
        <Fact label={t`Lowest`} value={low} />
        <Fact label={t`Highest`} value={high} />
        {counter.reset !== null && <Fact label={t`All time`} value={counter.allTime} />}
        <div className="flex gap-1">
          <dt>{t`Since`}</dt>
          <dd className="font-medium text-zinc-900 dark:text-zinc-100">{fullTime(from)}</dd>
        </div>
      </dl>
    </>
  );
}

function Fact({ label, value }: { label: string; value: number }) {
  return (
    <div className="flex gap-1">
      <dt>{label}</dt>
      <dd className="font-semibold text-zinc-900 tabular-nums dark:text-zinc-100">
        {formatNumber(value)}
      </dd>
    </div>
  );
}

/** "Resets every Monday at midnight (Europe/Berlin)." */
function resetText(reset: NonNullable<Counter['reset']>, weekStart: number, timeZone: string) {
  switch (reset) {
    case 'daily':
      return t`Resets every day at midnight (${timeZone}).`;
    case 'weekly': {
      const weekday = weekdayNames()[weekStart - 1] ?? '';
      return t`Resets every ${weekday} at midnight (${timeZone}).`;
    }
    case 'monthly':
      return t`Resets on the 1st of every month at midnight (${timeZone}).`;
  }
}

/** "The current period began at 00:00." for a day, "… on Mon 23 Nov, 00:00." for longer ones. */
function currentPeriodText(kind: PeriodKind, since: number, timeZone: string) {
  const time = timeOfDay(since, timeZone);
  if (kind === 'day') return t`The current period began at ${time}.`;
  const day = dayLabel(since, timeZone);
  return t`The current period began on ${day}, ${time}.`;
}

const PERIOD_HEADING: Record<PeriodKind, () => string> = {
  day: () => t`Per day`,
  week: () => t`Per week`,
  month: () => t`Per month`,
};
const PERIOD_LIST: Record<PeriodKind, () => string> = {
  day: () => t`Totals per day, newest first`,
  week: () => t`Totals per week, newest first`,
  month: () => t`Totals per month, newest first`,
};
const NO_PERIOD_YET: Record<PeriodKind, () => string> = {
  day: () => t`No ended periods yet: the first one ends at midnight.`,
  week: () => t`No ended periods yet: the first one ends when the next week starts.`,
  month: () => t`No ended periods yet: the first one ends when the next month starts.`,
};

/**
 * A resetting counter's totals per period, newest first: the one running now (the counter's value,
 * marked "current"), then the ended ones the server keeps, each with a bar.
 */
function Periods({ counter, store }: { counter: Counter; store: GroupStore }) {
  const { t } = useLingui();
  const headingId = useId();
  const [periods, setPeriods] = useState<CounterPeriod[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const { id, reset } = counter;
  const { timeZone } = store.getState().group;

  useEffect(() => {
    let current = true;
    fetchCounterPeriods(store, id, PERIODS_LISTED).then(
      (answer) => {
        if (current) setPeriods(answer.periods);
      },
      (reason: unknown) => {
        if (!current) return;
        setError(
          reason instanceof ApiRequestError && reason.serverMessage
            ? reason.serverMessage
            : t`The periods could not be loaded.`,
        );
      },
    );
    return () => {
      current = false;
    };
    // A reset ends a period: periodStart moves and the list is asked for again.
  }, [store, id, counter.periodStart]);

  if (reset === null) return null;
  const kind = RESET_KIND[reset];
  const rows = periodRows(counter, periods ?? [], { timeZone });
  const since = counter.periodStart === null ? null : Date.parse(counter.periodStart);
  const startValue = formatNumber(counter.startValue);

  return (
    <section
      aria-labelledby={headingId}
      className="mt-5 border-t border-zinc-200 pt-4 dark:border-zinc-800"
    >
      <h3 id={headingId} className="text-base font-semibold">
        {PERIOD_HEADING[kind]()}
      </h3>
      <p className="muted mt-0.5 text-xs">
        {resetText(reset, store.getState().group.weekStart, timeZone)}{' '}
        {t`It starts again at ${startValue}.`}
        {since !== null && ` ${currentPeriodText(kind, since, timeZone)}`}
      </p>
      <ol
        aria-label={PERIOD_LIST[kind]()}
        // Scrolls past 8 rows: reachable from the keyboard then (arrow keys scroll it).
        tabIndex={rows.length > 8 ? 0 : undefined}
        className="mt-3 max-h-64 space-y-1 overflow-y-auto pe-1"
      >
        {rows.map((row) => (
          <li
            key={row.key}
            aria-current={row.current ? 'true' : undefined}
            className={`grid grid-cols-[minmax(7.5rem,auto)_1fr_auto] items-center gap-3 rounded-lg px-2 py-1.5 text-sm ${
              row.current ? 'bg-indigo-50 dark:bg-indigo-950/40' : ''
            }`}
          >
            <span className="min-w-0 truncate">
              {row.label}
              {row.current && ' '}
              {row.current && (
                <span className="rounded-full bg-indigo-600 px-1.5 py-0.5 text-[11px] font-semibold text-white dark:bg-indigo-400 dark:text-zinc-950">
                  {t`current`}
                </span>
              )}
            </span>
            <span aria-hidden="true" className="h-2 rounded-full bg-zinc-100 dark:bg-zinc-800">
              <span
                className={`block h-2 rounded-full ${
                  row.current
                    ? 'bg-indigo-600 dark:bg-indigo-400'
                    : 'bg-indigo-300 dark:bg-indigo-700'
                }`}
                style={{ width: `${(row.share * 100).toFixed(1)}%` }}
              />
            </span>
            <span className="text-end font-semibold tabular-nums">
              <span className="sr-only">: </span>
              {formatNumber(row.value)}
            </span>
          </li>
        ))}
      </ol>
      {error !== null ? (
        <p role="alert" className="mt-2 error-text">
          {error}
        </p>
      ) : periods === null ? (
        <p role="status" className="muted mt-2 flex items-center gap-2 text-sm">
          <Loader className="size-4 animate-spin" />
          {t`Loading ended periods…`}
        </p>
      ) : (
        periods.length === 0 && <p className="muted mt-2 text-sm">{NO_PERIOD_YET[kind]()}</p>
      )}
    </section>
  );
}
