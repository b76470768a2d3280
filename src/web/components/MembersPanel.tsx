/**
 * "By member": who counted how much, from the activity log (GET …/tallies), as a
 * leaderboard of the whole group or of one counter, over all time or the current period. Shown
 * in the activity panel's second tab, in its own chunk (loaded when the panel opens). While it is
 * shown it follows the group live: when a counter changes (any member's tap, an undo, a reset),
 * it asks again, once per burst.
 */
import { useEffect, useId, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import type { Counter, Tally } from '../../shared/api.js';
import { fetchTallies } from '../lib/activity.js';
import { ApiRequestError, member } from '../lib/api.js';
import {
  CURRENT_PERIOD_LABEL,
  dayLabel,
  RESET_KIND,
  startOfPeriod,
  timeOfDay,
  type PeriodKind,
} from '../lib/periods.js';
import { leaderboard, leaderName, signedNet, type TallyGrouping } from '../lib/tallies.js';
import type { GroupStore } from '../live/groupStore.js';
import { ErrorBanner } from './ErrorBanner.js';
import { Check, Loader } from './icons/index.js';
import { formatNumber } from '../i18n/format.js';

/** Changes are followed this long after the first one of a burst, ms. */
export const TALLIES_REFRESH_MS = 500;

/**
 * The range of the leaderboard. For the whole group (or a counter that never resets) the ranges
 * are calendar ones in the group's time zone, from the midnights its counters reset at: today,
 * this week (from the group's first day of the week), this month. Counters resetting on
 * different schedules have no common "period", and "since each counter's own period began" would
 * add up taps of different lengths of time: a calendar range is one clear time for every row.
 * A counter that resets has exactly one: "This period", since its own periodStart (the server's).
 */
type Range = 'all' | 'period' | PeriodKind;

const GROUP_RANGES: { range: Range; label: string }[] = [
  { range: 'all', label: 'All time' },
  { range: 'day', label: CURRENT_PERIOD_LABEL.day },
  { range: 'week', label: CURRENT_PERIOD_LABEL.week },
  { range: 'month', label: CURRENT_PERIOD_LABEL.month },
];
const COUNTER_RANGES: { range: Range; label: string }[] = [
  { range: 'all', label: 'All time' },
  { range: 'period', label: 'This period' },
];

const ALL = '';

const GROUPINGS: { by: TallyGrouping; label: string }[] = [
  { by: 'member', label: 'Member' },
  { by: 'link', label: 'Tap link' },
];

/** The number columns take what their content needs; the member's name gets the rest. */
const NUMBER_HEAD = 'w-px py-2 ps-3 text-end font-medium whitespace-nowrap';

/** A range choice: a radio button drawn as a chip; the chosen one filled and ticked. */
const RANGE_CHIP =
  'inline-flex cursor-pointer items-center gap-1 rounded-lg border border-zinc-300 px-2.5 py-1.5 text-xs font-semibold text-zinc-800 transition-colors select-none hover:bg-zinc-100 has-[:checked]:border-indigo-600 has-[:checked]:bg-indigo-600 has-[:checked]:text-white has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-indigo-500 dark:border-zinc-700 dark:text-zinc-100 dark:hover:bg-zinc-800 dark:has-[:checked]:border-indigo-400 dark:has-[:checked]:bg-indigo-400 dark:has-[:checked]:text-zinc-950';

/**
 * Something to ask again for: the newest change number among the counters (counter versions are
 * the group's change numbers, so any confirmed change raises it) and how many there are (a
 * delete). Presence and this tab's own unconfirmed taps leave it alone.
 */
function changeMark(counters: readonly Counter[] | null): string {
  if (counters === null) return '';
  let newest = 0;
  for (const counter of counters) newest = Math.max(newest, counter.version);
  return `${newest}/${counters.length}`;
}

interface Loaded {
  /** The query the rows answer (a newer answer replaces them). */
  query: string;
  rows: Tally[];
}

export function MembersPanel({ store }: { store: GroupStore }) {
  const selectId = useId();
  const captionId = useId();
  const [counterId, setCounterId] = useState<string>(ALL);
  const [range, setRange] = useState<Range>('all');
  const [by, setBy] = useState<TallyGrouping>('member');
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [retry, setRetry] = useState(0);
  const state = useSyncExternalStore(store.subscribe, store.getState);
  const { group } = state;
  const counters = useMemo(() => state.counters ?? [], [state.counters]);
  const counter = counters.find((candidate) => candidate.id === counterId) ?? null;
  // A chosen counter that was deleted: back to the whole group.
  const chosen = counter?.id ?? null;
  const resets = counter !== null && counter.reset !== null;
  const ranges = resets ? COUNTER_RANGES : GROUP_RANGES;
  const effectiveRange: Range = ranges.some((option) => option.range === range) ? range : 'all';

  /** Epoch ms the range starts at; null for all time. Calendar ranges at the time asked. */
  const sinceOf = (now: number): number | null => {
    if (effectiveRange === 'all') return null;
    if (effectiveRange === 'period') {
      const start = counter?.periodStart;
      return start ? Date.parse(start) : null;
    }
    return startOfPeriod(now, effectiveRange, group);
  };
  const since = sinceOf(Date.now());
  const query = `${chosen ?? ALL}|${effectiveRange}|${since ?? ''}|${by}`;
  const mark = changeMark(state.counters);

  // Asked at once when what is shown changes; after a live change, TALLIES_REFRESH_MS after the
  // first of its burst (not after the last: a member tapping without a pause must not hold the
  // board back). Answers are shown in the order they were asked for, never an older over a newer.
  const ask = useRef<() => void>(() => undefined);
  const asked = useRef(0);
  const shown = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  ask.current = () => {
    const number = ++asked.current;
    fetchTallies(store, { counterId: chosen, since: sinceOf(Date.now()), by }).then(
      (rows) => {
        if (number < shown.current || !mounted.current) return;
        shown.current = number;
        setLoaded({ query, rows });
        setError(null);
      },
      (reason: unknown) => {
        if (number < shown.current || !mounted.current) return;
        setError(
          reason instanceof ApiRequestError && reason.serverMessage
            ? reason.serverMessage
            : 'Who counted could not be loaded.',
        );
      },
    );
  };
  const mounted = useRef(false);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
      clearTimeout(timer.current);
      timer.current = undefined;
    };
  }, []);
  useEffect(() => {
    clearTimeout(timer.current);
    timer.current = undefined;
    ask.current();
  }, [store, query, retry]);
  const seenMark = useRef(mark);
  useEffect(() => {
    if (seenMark.current === mark) return;
    seenMark.current = mark;
    timer.current ??= setTimeout(() => {
      timer.current = undefined;
      ask.current();
    }, TALLIES_REFRESH_MS);
  }, [mark]);

  const board = useMemo(
    () => (loaded === null ? null : leaderboard(loaded.rows, chosen)),
    [loaded, chosen],
  );
  const stale = loaded !== null && loaded.query !== query;
  const me = member.name();

  const scope = counter === null ? 'All counters' : counter.name || 'Counter Name';
  const rangeText = describeRange({ range: effectiveRange, since }, counter, {
    timeZone: group.timeZone,
  });

  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <div className="flex flex-wrap items-end gap-x-3 gap-y-2 border-b border-zinc-200 px-4 py-3 dark:border-zinc-800">
        <div className="min-w-40 flex-1">
          <label htmlFor={selectId} className="muted mb-1 block text-xs font-medium">
            Counter
          </label>
          <select
            id={selectId}
            value={chosen ?? ALL}
            onChange={(event) => {
              setCounterId(event.currentTarget.value);
              setRange('all');
            }}
            className="field py-2"
          >
            <option value={ALL}>All counters</option>
            {counters.map((option) => (
              <option key={option.id} value={option.id}>
                {option.name || 'Counter Name'}
              </option>
            ))}
          </select>
        </div>
        <ChipChoice
          legend="By"
          name={`${selectId}-by`}
          options={GROUPINGS.map((option) => ({ value: option.by, label: option.label }))}
          value={by}
          onChange={setBy}
        />
        <ChipChoice
          legend="Range"
          name={`${selectId}-range`}
          options={ranges.map((option) => ({ value: option.range, label: option.label }))}
          value={effectiveRange}
          onChange={setRange}
        />
      </div>

      {error !== null && (
        <ErrorBanner
          inPanel
          message={error}
          action={
            <button
              type="button"
              onClick={() => {
                setError(null);
                setRetry((n) => n + 1);
              }}
              className="chip-btn shrink-0"
            >
              Try again
            </button>
          }
        />
      )}

      {/* Focusable: a long board scrolls, and arrow keys scroll it. */}
      <div
        role="region"
        aria-label="Leaderboard"
        tabIndex={0}
        className="min-h-0 flex-1 overflow-y-auto overscroll-contain px-4 py-3"
      >
        {board === null ? (
          error === null && (
            <p role="status" className="muted flex items-center justify-center gap-2 py-10">
              <Loader className="size-4 animate-spin" />
              Loading who counted…
            </p>
          )
        ) : (
          <table
            aria-describedby={captionId}
            aria-busy={stale}
            className={`w-full text-sm tabular-nums ${stale ? 'opacity-60' : ''}`}
          >
            <caption className="mb-2 text-start">
              <span className="block font-semibold">
                {scope} · {rangeText.title}
              </span>
              <span id={captionId} className="muted block text-xs">
                {rangeText.detail}
              </span>
            </caption>
            <thead>
              <tr className="muted border-b border-zinc-200 text-xs dark:border-zinc-800">
                <th scope="col" className="w-px py-2 pe-3 text-start font-medium">
                  <span aria-hidden="true">#</span>
                  <span className="sr-only">Rank</span>
                </th>
                <th scope="col" className="w-full py-2 pe-2 text-start font-medium">
                  {by === 'link' ? 'Tap link' : 'Member'}
                </th>
                <th scope="col" className={NUMBER_HEAD}>
                  Added
                </th>
                <th scope="col" className={NUMBER_HEAD}>
                  Taken away
                </th>
                <th scope="col" className={NUMBER_HEAD}>
                  Net
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-200 dark:divide-zinc-800">
              {board.length === 0 ? (
                <tr>
                  <td colSpan={5} className="muted py-8 text-center">
                    {emptyText(effectiveRange, counter)}
                  </td>
                </tr>
              ) : (
                board.map((row) => {
                  const name = leaderName(row, by);
                  const mine = by === 'member' && row.member === me;
                  return (
                    <tr
                      key={`${row.member}\n${row.link ?? ''}`}
                      className={mine ? 'bg-indigo-50 dark:bg-indigo-950/40' : undefined}
                    >
                      <td className="py-2 pe-3 font-semibold">{row.rank}</td>
                      <th scope="row" className="max-w-0 py-2 pe-2 text-start font-medium">
                        <span className="block truncate" title={name}>
                          {name}
                          {mine && <span className="muted font-normal"> (you)</span>}
                        </span>
                      </th>
                      <td className="py-2 ps-3 text-end">{formatNumber(row.increments)}</td>
                      <td className="py-2 ps-3 text-end">{formatNumber(row.decrements)}</td>
                      <td className="py-2 ps-3 text-end font-semibold">{signedNet(row.net)}</td>
                    </tr>
                  );
                })
              )}
            </tbody>
          </table>
        )}
      </div>
    </div>
  );
}

/** One choice among a few, as radio buttons drawn as chips; the chosen one filled and ticked. */
function ChipChoice<T extends string>({
  legend,
  name,
  options,
  value,
  onChange,
}: {
  legend: string;
  name: string;
  options: readonly { value: T; label: string }[];
  value: T;
  onChange: (value: T) => void;
}) {
  return (
    <fieldset className="min-w-0">
      <legend className="muted mb-1 text-xs font-medium">{legend}</legend>
      <div className="flex flex-wrap gap-1">
        {options.map((option) => (
          <label key={option.value} className={RANGE_CHIP}>
            <input
              type="radio"
              name={name}
              value={option.value}
              checked={value === option.value}
              onChange={() => {
                onChange(option.value);
              }}
              className="sr-only"
            />
            {value === option.value && <Check className="size-3.5" />}
            {option.label}
          </label>
        ))}
      </div>
    </fieldset>
  );
}

/**
 * The caption's words for a range starting at `since` (null: all time) of `counter` (null: every
 * counter), in `timeZone` as of `now` (Date.now() unless given): "Today" and "since 00:00
 * (Europe/Berlin)".
 */
export function describeRange(
  { range, since }: { range: Range; since: number | null },
  counter: Pick<Counter, 'name' | 'reset'> | null,
  { timeZone, now = Date.now() }: { timeZone: string; now?: number },
): { title: string; detail: string } {
  const addedUp = 'Taps, steps included; typed values and undone taps do not count.';
  if (range === 'all' || since === null) {
    return { title: range === 'all' ? 'All time' : 'This period', detail: addedUp };
  }
  const title =
    range === 'period' && counter?.reset
      ? `This period (${CURRENT_PERIOD_LABEL[RESET_KIND[counter.reset]].toLowerCase()})`
      : range === 'period'
        ? 'This period'
        : CURRENT_PERIOD_LABEL[range];
  const start =
    range === 'day' || (range === 'period' && counter?.reset === 'daily')
      ? timeOfDay(since, timeZone)
      : `${dayLabel(since, timeZone, now)}, ${timeOfDay(since, timeZone)}`;
  return { title, detail: `Since ${start} (${timeZone}). ${addedUp}` };
}

function emptyText(range: Range, counter: Counter | null): string {
  const where = counter === null ? '' : ` ${counter.name || 'Counter Name'}`;
  switch (range) {
    case 'all':
      return `Nobody has counted${where === '' ? '' : ` on${where}`} yet.`;
    case 'period':
      return `Nobody has counted on${where} in this period yet.`;
    case 'day':
      return `Nobody has counted${where === '' ? '' : ` on${where}`} today.`;
    case 'week':
      return `Nobody has counted${where === '' ? '' : ` on${where}`} this week.`;
    case 'month':
      return `Nobody has counted${where === '' ? '' : ` on${where}`} this month.`;
  }
}
