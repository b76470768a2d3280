/**
 * "By member": who counted how much, from the activity log (GET …/tallies), as a
 * leaderboard of the whole group or of one counter, over all time or the current period. Shown
 * in the activity panel's second tab, in its own chunk (loaded when the panel opens). While it is
 * shown it follows the group live: when a counter changes (any member's tap, an undo, a reset),
 * it asks again, once per burst. A member's row opens their detail: their changes with a note or
 * counted for an earlier time, in the board's counter and range.
 */
import { t } from '@lingui/core/macro';
import { useLingui } from '@lingui/react/macro';
import { Fragment, useEffect, useId, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import type { Counter, Tally } from '../../shared/api.js';
import { fetchTallies } from '../lib/activity.js';
import { ApiRequestError, member } from '../lib/api.js';
import {
  CURRENT_PERIOD_LABEL,
  dayLabel,
  startOfPeriod,
  timeOfDay,
  type PeriodKind,
} from '../lib/periods.js';
import {
  leaderboard,
  leaderName,
  signedNet,
  type LeaderRow,
  type TallyGrouping,
} from '../lib/tallies.js';
import type { GroupStore } from '../live/groupStore.js';
import { ErrorBanner } from './ErrorBanner.js';
import { Check, Loader } from './icons/index.js';
import { NotedChanges } from './NotedChanges.js';
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

const GROUP_RANGES: readonly Range[] = ['all', 'day', 'week', 'month'];
const COUNTER_RANGES: readonly Range[] = ['all', 'period'];

/** A range's chip: "All time", "This period", "Today"… */
function rangeLabel(range: Range): string {
  if (range === 'all') return t`All time`;
  if (range === 'period') return t`This period`;
  return CURRENT_PERIOD_LABEL[range];
}

const ALL = '';

const GROUPINGS: readonly TallyGrouping[] = ['member', 'link'];
const groupingLabel = (by: TallyGrouping) => (by === 'member' ? t`Member` : t`Tap link`);

/** The number columns take what their content needs; the member's name gets the rest. */
const NUMBER_HEAD = 'w-px py-2 ps-3 text-end font-medium whitespace-nowrap';

/** A range choice: a radio button drawn as a chip; the chosen one filled and ticked. */
const RANGE_CHIP_CLASS =
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
  const { t } = useLingui();
  const selectId = useId();
  const captionId = useId();
  const detailId = useId();
  /** The row whose detail is open: its member and link ("Ada\nGate B"). */
  const [open, setOpen] = useState<string | null>(null);
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
  const effectiveRange: Range = ranges.includes(range) ? range : 'all';

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
            : t`Who counted could not be loaded.`,
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

  const scope = counter === null ? t`All counters` : counter.name || t`Counter Name`;
  const rangeText = describeRange({ range: effectiveRange, since }, counter, {
    timeZone: group.timeZone,
  });

  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <div className="flex flex-wrap items-end gap-x-3 gap-y-2 border-b border-zinc-200 px-4 py-3 dark:border-zinc-800">
        <div className="min-w-40 flex-1">
          <label htmlFor={selectId} className="muted mb-1 block text-xs font-medium">
            {t`Counter`}
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
            <option value={ALL}>{t`All counters`}</option>
            {counters.map((option) => (
              <option key={option.id} value={option.id}>
                {option.name || t`Counter Name`}
              </option>
            ))}
          </select>
        </div>
        <ChipChoice
          legend={t`By`}
          name={`${selectId}-by`}
          options={GROUPINGS.map((option) => ({ value: option, label: groupingLabel(option) }))}
          value={by}
          onChange={setBy}
        />
        <ChipChoice
          legend={t`Range`}
          name={`${selectId}-range`}
          options={ranges.map((option) => ({ value: option, label: rangeLabel(option) }))}
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
              {t`Try again`}
            </button>
          }
        />
      )}

      {/* Focusable: a long board scrolls, and arrow keys scroll it. */}
      <div
        role="region"
        aria-label={t`Leaderboard`}
        tabIndex={0}
        className="min-h-0 flex-1 overflow-y-auto overscroll-contain px-4 py-3"
      >
        {board === null ? (
          error === null && (
            <p role="status" className="muted flex items-center justify-center gap-2 py-10">
              <Loader className="size-4 animate-spin" />
              {t`Loading who counted…`}
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
                  <span className="sr-only">{t`Rank`}</span>
                </th>
                <th scope="col" className="w-full py-2 pe-2 text-start font-medium">
                  {groupingLabel(by)}
                </th>
                <th scope="col" className={NUMBER_HEAD}>
                  {t`Added`}
                </th>
                <th scope="col" className={NUMBER_HEAD}>
                  {t`Taken away`}
                </th>
                <th scope="col" className={NUMBER_HEAD}>
                  {t`Net`}
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
                board.map((row) => (
                  <BoardRow
                    key={`${row.member}\n${row.link ?? ''}`}
                    row={row}
                    by={by}
                    me={me}
                    open={open === `${row.member}\n${row.link ?? ''}`}
                    onToggle={(opened) => {
                      setOpen(opened ? `${row.member}\n${row.link ?? ''}` : null);
                    }}
                    detailId={detailId}
                    store={store}
                    counterId={chosen}
                    since={since}
                  />
                ))
              )}
            </tbody>
          </table>
        )}
      </div>
    </div>
  );
}

/**
 * A row of the board; a member's name is a button that opens, beneath the row, their changes with a
 * note or counted for an earlier time in the board's counter and range.
 */
function BoardRow({
  row,
  by,
  me,
  open,
  onToggle,
  detailId,
  store,
  counterId,
  since,
}: {
  row: LeaderRow;
  by: TallyGrouping;
  me: string;
  open: boolean;
  onToggle: (open: boolean) => void;
  detailId: string;
  store: GroupStore;
  counterId: string | null;
  since: number | null;
}) {
  const { t } = useLingui();
  const name = leaderName(row, by);
  const mine = by === 'member' && row.member === me;
  const label = (
    <>
      {name}
      {mine && <span className="muted font-normal">{` ${t`(you)`}`}</span>}
    </>
  );
  return (
    <Fragment>
      <tr className={mine ? 'bg-indigo-50 dark:bg-indigo-950/40' : undefined}>
        <td className="py-2 pe-3 font-semibold">{row.rank}</td>
        <th scope="row" className="max-w-0 pe-2 text-start font-medium">
          {by === 'member' ? (
            <button
              type="button"
              aria-expanded={open}
              aria-controls={open ? detailId : undefined}
              onClick={() => {
                onToggle(!open);
              }}
              className="flex w-full min-w-0 items-center gap-1 py-2 text-start font-medium hover:underline"
            >
              {/* A triangle character, not an icon: an icon module shared with another chunk
                  would be split into a chunk of its own, one more file the screen lists. Drawn
                  by CSS, so that the row's text is the member's name alone. */}
              <span
                aria-hidden="true"
                className={`shrink-0 text-xs text-zinc-500 before:content-['▾'] motion-safe:transition-transform ${open ? 'rotate-180' : ''}`}
              />
              <span className="block truncate" title={name}>
                {label}
              </span>
            </button>
          ) : (
            <span className="block truncate py-2" title={name}>
              {label}
            </span>
          )}
        </th>
        <td className="py-2 ps-3 text-end">{formatNumber(row.increments)}</td>
        <td className="py-2 ps-3 text-end">{formatNumber(row.decrements)}</td>
        <td className="py-2 ps-3 text-end font-semibold">{signedNet(row.net)}</td>
      </tr>
      {open && (
        <tr id={detailId}>
          <td colSpan={5} className="pb-3">
            <NotedChanges
              store={store}
              member={row.member}
              link={row.link ?? null}
              counterId={counterId}
              since={since}
              showCounter={counterId === null}
              label={t`Notes by ${name}, newest first`}
            />
          </td>
        </tr>
      )}
    </Fragment>
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
          <label key={option.value} className={RANGE_CHIP_CLASS}>
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
  const addedUp = t`Taps, steps included; typed values and undone taps do not count.`;
  if (range === 'all' || since === null) {
    return { title: range === 'all' ? t`All time` : t`This period`, detail: addedUp };
  }
  const title =
    range === 'period' ? periodTitle(counter?.reset ?? null) : CURRENT_PERIOD_LABEL[range];
  const time = timeOfDay(since, timeZone);
  const day = dayLabel(since, timeZone, now);
  const from =
    range === 'day' || (range === 'period' && counter?.reset === 'daily')
      ? t`Since ${time} (${timeZone}).`
      : t`Since ${day}, ${time} (${timeZone}).`;
  return { title, detail: `${from} ${addedUp}` };
}

/** "This period (this week)": a resetting counter's current period, named. */
function periodTitle(reset: Counter['reset']): string {
  switch (reset) {
    case 'daily':
      return t`This period (today)`;
    case 'weekly':
      return t`This period (this week)`;
    case 'monthly':
      return t`This period (this month)`;
    case null:
      return t`This period`;
  }
}

function emptyText(range: Range, counter: Counter | null): string {
  if (counter === null) {
    switch (range) {
      case 'all':
        return t`Nobody has counted yet.`;
      case 'period':
        return t`Nobody has counted in this period yet.`;
      case 'day':
        return t`Nobody has counted today.`;
      case 'week':
        return t`Nobody has counted this week.`;
      case 'month':
        return t`Nobody has counted this month.`;
    }
  }
  const name = counter.name || t`Counter Name`;
  switch (range) {
    case 'all':
      return t`Nobody has counted on ${name} yet.`;
    case 'period':
      return t`Nobody has counted on ${name} in this period yet.`;
    case 'day':
      return t`Nobody has counted on ${name} today.`;
    case 'week':
      return t`Nobody has counted on ${name} this week.`;
    case 'month':
      return t`Nobody has counted on ${name} this month.`;
  }
}
