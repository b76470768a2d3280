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
import { ApiRequestError } from '../lib/api.js';
import { capacityOf, goalProgress } from '../lib/capacity.js';
import { displayLayout, GAP_PX, HEADER_PX, widestValue } from '../lib/display.js';
import { takeOpening } from '../lib/opening.js';
import { capacityText, layoutBlocks, totalText, type SectionBlock } from '../lib/sections.js';
import { GroupStore } from '../live/groupStore.js';
import { AccessDenied } from './group/Notices.js';
import { Pending, Shell } from './group/Page.js';

type Access =
  | { phase: 'loading' }
  | { phase: 'offline' }
  | { phase: 'denied'; message: string }
  | { phase: 'granted'; store: GroupStore };

const RETRY_MS = 3_000;

export function DisplayScreen({
  rawName,
  accessKey,
}: {
  rawName: string;
  accessKey: string | null;
}) {
  const [access, setAccess] = useState<Access>({ phase: 'loading' });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    if (access.phase !== 'offline') return;
    const retry = () => {
      setAttempt((n) => n + 1);
    };
    const timer = setTimeout(retry, RETRY_MS);
    window.addEventListener('online', retry);
    return () => {
      clearTimeout(timer);
      window.removeEventListener('online', retry);
    };
  }, [access.phase, attempt]);

  useEffect(() => {
    let store: GroupStore | null = null;
    let cancelled = false;
    const opening = takeOpening(rawName, accessKey);
    if (!opening.ok) {
      setAccess({ phase: 'denied', message: opening.message });
      return;
    }
    opening.group.then(
      (snapshot) => {
        if (cancelled) return;
        // No member: the display is not listed under 'Here now'.
        store = new GroupStore(
          snapshot.group.name,
          opening.key,
          snapshot.group,
          snapshot.seq,
          opening.counters,
          snapshot.access,
          null,
        );
        store.start();
        setAccess({ phase: 'granted', store });
      },
      (error: unknown) => {
        if (cancelled) return;
        if (error instanceof ApiRequestError && error.status === 0) setAccess({ phase: 'offline' });
        else setAccess({ phase: 'denied', message: accessError(error) });
      },
    );
    return () => {
      cancelled = true;
      store?.dispose();
    };
  }, [rawName, accessKey, attempt]);

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

function accessError(error: unknown): string {
  if (error instanceof ApiRequestError) {
    if (error.code === 'missing_key') return MESSAGES.missingNameOrKey;
    if (error.code === 'invalid_key_format') return MESSAGES.invalidKeyFormat;
    if (error.code === 'wrong_key') return MESSAGES.wrongKey;
    return error.serverMessage || error.message || MESSAGES.accessDenied;
  }
  return error instanceof Error && error.message ? error.message : MESSAGES.accessDenied;
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
            <DisplayCell
              key={counter.id}
              counter={counter}
              valueSize={layout.valueSize}
              nameSize={layout.nameSize}
            />
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
  valueSize,
  nameSize,
}: {
  counter: Counter;
  valueSize: number;
  nameSize: number;
}) {
  const name = counter.name === '' ? 'Counter Name' : counter.name;
  const goal = goalProgress(counter);
  const capacity = capacityOf(counter);
  return (
    <li
      data-testid="display-counter"
      className="flex min-w-0 flex-col items-center justify-center rounded-2xl border border-zinc-200 bg-zinc-50 p-3 text-center dark:border-zinc-800 dark:bg-zinc-900"
    >
      <span
        className="max-w-full truncate font-semibold text-zinc-700 dark:text-zinc-300"
        style={{ fontSize: `${nameSize}px`, lineHeight: 1.2 }}
      >
        {name}
      </span>
      <span
        data-testid="display-value"
        className="font-bold tabular-nums"
        style={{ fontSize: `${valueSize}px`, lineHeight: 1.05 }}
      >
        {format(counter.value)}
      </span>
      {goal !== null && (
        <span className="w-full max-w-md" style={{ fontSize: `${Math.max(16, nameSize * 0.7)}px` }}>
          <span className="tabular-nums">
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
          className={`font-semibold tabular-nums ${toneText(capacity.level)}`}
          style={{ fontSize: `${Math.max(16, nameSize * 0.7)}px` }}
        >
          {capacity.label} · {format(counter.value)} / {format(capacity.max)}
        </span>
      )}
    </li>
  );
}
