/**
 * Display mode (issue 18): /{group}/display?key=… for a projector or TV. Every counter's name and
 * value in a grid that fills the screen (lib/display.ts sizes it), with goal progress, capacity and
 * section totals when set. Read only: no editing controls, no presence (this tab joins the live
 * connection without a member entry, so no name is listed), live and reconnecting by itself
 * through the group screen's own store.
 */
import { useEffect, useState, useSyncExternalStore } from 'react';
import type { Counter } from '../../shared/api.js';
import { MESSAGES } from '../../shared/messages.js';
import { PaceLine } from '../components/PaceLine.js';
import { capacityOf, goalProgress } from '../lib/capacity.js';
import {
  DETAIL_LINE,
  detailLines,
  displayLayout,
  GAP_PX,
  HEADER_PX,
  NAME_LINE,
  VALUE_LINE,
  widestValue,
  type DisplayLayout,
} from '../lib/display.js';
import { capacityText, layoutBlocks, totalText, type SectionBlock } from '../lib/sections.js';
import type { GroupStore } from '../live/groupStore.js';
import { AccessDenied } from './group/Notices.js';
import { Pending, Shell } from './group/Page.js';
import { useGroupAccess } from './group/useGroupAccess.js';

/** The display joins the live channel without a member entry: it is not listed in 'Here now'. */
const noMember = () => null;

export function DisplayScreen({
  rawName,
  accessKey,
}: {
  rawName: string;
  accessKey: string | null;
}) {
  const access = useGroupAccess(rawName, accessKey, noMember);
  if (access.phase === 'loading' || access.phase === 'offline') {
    return (
      <Shell>
        <Pending>{access.phase === 'offline' ? 'Reconnecting…' : MESSAGES.loadingGroup}</Pending>
      </Shell>
    );
  }
  if (access.phase === 'denied') return <AccessDenied message={access.message} />;
  return <DisplayView store={access.store} />;
}

function useViewport(): { width: number; height: number } {
  const [size, setSize] = useState(() => ({
    width: window.innerWidth,
    height: window.innerHeight,
  }));
  useEffect(() => {
    const onResize = () => {
      setSize({ width: window.innerWidth, height: window.innerHeight });
    };
    window.addEventListener('resize', onResize);
    return () => {
      window.removeEventListener('resize', onResize);
    };
  }, []);
  return size;
}

const format = (value: number) => value.toLocaleString('en-US');

const STATUS_TEXT = { live: 'Live', connecting: 'Connecting…', offline: 'Reconnecting…' } as const;

function DisplayView({ store }: { store: GroupStore }) {
  const state = useSyncExternalStore(store.subscribe, store.getState);
  const { group } = state;
  const viewport = useViewport();

  useEffect(() => {
    document.title = `${group.displayName} · Display · Tally`;
  }, [group.displayName]);

  const counters = state.counters ?? [];
  const sections = layoutBlocks(counters, group.sectionLimits).filter(
    (block): block is SectionBlock => block.kind === 'section',
  );
  const layout = displayLayout(
    counters.length,
    viewport.width,
    viewport.height - (sections.length > 0 ? 48 : 0),
    widestValue(counters.map((counter) => counter.value)),
    Math.max(1, ...counters.map(detailLines)),
  );

  return (
    <main
      data-testid="display"
      className="flex min-h-dvh flex-col bg-white text-zinc-900 dark:bg-zinc-950 dark:text-zinc-50"
      style={{ padding: `0 ${GAP_PX / 2}px ${GAP_PX / 2}px` }}
    >
      <header
        className="flex items-center gap-4 pr-16 pl-2"
        style={{ minHeight: `${HEADER_PX}px` }}
      >
        <h1 className="min-w-0 truncate text-3xl font-bold">{group.displayName}</h1>
        <p
          role="status"
          data-testid="display-status"
          className="ml-auto shrink-0 text-lg font-medium text-zinc-700 dark:text-zinc-300"
        >
          {STATUS_TEXT[state.status]}
        </p>
      </header>
      {sections.length > 0 && (
        <ul
          aria-label="Section totals"
          className="flex flex-wrap gap-x-6 gap-y-1 px-2 pb-2 text-xl"
        >
          {sections.map((block) => (
            <li key={block.name} data-testid="display-section" className="tabular-nums">
              <span className="font-semibold">{block.name}</span> {totalText(block)}
              {capacityText(block) !== null && (
                <span className={`ml-2 ${toneText(block.capacity)}`}>· {capacityText(block)}</span>
              )}
            </li>
          ))}
        </ul>
      )}
      {state.counters === null ? (
        <Pending>{MESSAGES.loadingCounters}</Pending>
      ) : counters.length === 0 ? (
        <p className="flex flex-1 items-center justify-center text-3xl text-zinc-700 dark:text-zinc-300">
          No counters yet
        </p>
      ) : (
        <ul
          aria-label="Counters"
          className="grid flex-1"
          style={{
            gap: `${GAP_PX}px`,
            gridTemplateColumns: `repeat(${layout.columns}, minmax(0, 1fr))`,
            gridAutoRows: 'minmax(0, 1fr)',
          }}
        >
          {counters.map((counter) => (
            <DisplayCell key={counter.id} counter={counter} store={store} layout={layout} />
          ))}
        </ul>
      )}
    </main>
  );
}

function toneText(level: string): string {
  if (level === 'full') return 'text-red-700 dark:text-red-300';
  if (level === 'near') return 'text-amber-800 dark:text-amber-300';
  return 'text-zinc-700 dark:text-zinc-300';
}

function DisplayCell({
  counter,
  store,
  layout: { valueSize, nameSize, detailSize },
}: {
  counter: Counter;
  store: GroupStore;
  layout: DisplayLayout;
}) {
  const name = counter.name === '' ? 'Counter Name' : counter.name;
  const goal = goalProgress(counter);
  const capacity = capacityOf(counter);
  const detail = { fontSize: `${detailSize}px`, lineHeight: DETAIL_LINE };
  const paceLines = counter.goal === null && counter.max === null ? 1 : 2;
  return (
    <li
      data-testid="display-counter"
      className="flex min-w-0 flex-col items-center justify-center rounded-2xl border border-zinc-200 bg-zinc-50 p-3 text-center dark:border-zinc-800 dark:bg-zinc-900"
    >
      <span
        className="max-w-full truncate font-semibold text-zinc-700 dark:text-zinc-300"
        style={{ fontSize: `${nameSize}px`, lineHeight: NAME_LINE }}
      >
        {name}
      </span>
      <span
        data-testid="display-value"
        className="font-bold tabular-nums"
        style={{ fontSize: `${valueSize}px`, lineHeight: VALUE_LINE }}
      >
        {format(counter.value)}
      </span>
      {goal !== null && (
        <span className="w-full max-w-md" style={detail}>
          <span className="block truncate tabular-nums">
            {goal.reached ? 'Goal reached · ' : 'Goal '}
            {goal.label}
          </span>
          <span
            role="progressbar"
            aria-label={`Goal of ${name}`}
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={Math.round(goal.fraction * 100)}
            aria-valuetext={goal.valueText}
            className="mt-1 block h-2 overflow-hidden rounded-full bg-zinc-200 dark:bg-zinc-800"
          >
            <span
              className={`block h-full rounded-full ${goal.reached ? 'bg-emerald-600 dark:bg-emerald-400' : 'bg-indigo-600 dark:bg-indigo-400'}`}
              style={{ width: `${Math.round(goal.fraction * 100)}%` }}
            />
          </span>
        </span>
      )}
      {capacity !== null && (
        <span
          data-testid="display-capacity"
          className={`max-w-full truncate font-semibold tabular-nums ${toneText(capacity.level)}`}
          style={detail}
        >
          {capacity.label} · {format(counter.value)} / {format(capacity.max)}
        </span>
      )}
      {/* The pace's lines are always there, so a value does not move when a pace appears. */}
      <span
        className="block w-full overflow-hidden"
        style={{ height: `${paceLines * DETAIL_LINE * detailSize}px` }}
      >
        <PaceLine
          counter={counter}
          store={store}
          stacked
          className="text-zinc-700 dark:text-zinc-300"
          style={detail}
        />
      </span>
    </li>
  );
}
