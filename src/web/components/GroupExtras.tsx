/**
 * The parts of the group screen that are not needed for its first paint, in one chunk
 * loaded right after it: each card's sparkline, and the undo toast with its Ctrl/Cmd+Z handler.
 * Sparkline data arrives after the screen is up anyway (GET …/history), and the toast only
 * appears once a change of this tab is confirmed, so neither costs the 80 KB initial budget.
 */
import { t } from '@lingui/core/macro';
import { NoteTaps } from './NoteTaps.js';
import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import type { HistoryPoint } from '../../shared/activity.js';
import type { AccessLevel, Counter } from '../../shared/api.js';
/** SPARKLINE_POINTS of shared/limits.ts, not imported (see the top of lib/activity.ts). */
const SPARKLINE_POINTS = 30;
import { fetchGroupHistory } from '../lib/activity.js';
import { describeOp, undoErrorMessage } from '../lib/describe.js';
import type { GroupStore } from '../live/groupStore.js';
import type { Op } from '../live/ops.js';
import { DismissButton } from './ErrorBanner.js';
import { ChartLine, History } from './icons/index.js';

const loadActivityPanel = () => import('./ActivityPanel.js');
const ActivityPanel = lazy(() => loadActivityPanel().then((m) => ({ default: m.ActivityPanel })));
/** The panel is fetched this long after the screen is up, before anyone opens it, ms. */
const PREFETCH_PANEL_MS = 2_000;

const loadHistoryChart = () => import('./HistoryChart.js');
const HistoryChart = lazy(() => loadHistoryChart().then((m) => ({ default: m.HistoryChart })));

// ---- sparklines --------------------------------------------------------------------------------

/** Each counter's recent values, oldest first: fetched once per opened group, then extended. */
const histories = new WeakMap<GroupStore, Promise<Map<string, HistoryPoint[]>>>();

function historyOf(store: GroupStore): Promise<Map<string, HistoryPoint[]>> {
  let history = histories.get(store);
  if (!history) {
    history = fetchGroupHistory(store, SPARKLINE_POINTS).then(
      ({ series }) => new Map(Object.entries(series)),
      // Without the past, the sparklines start from what happens from now on.
      () => new Map<string, HistoryPoint[]>(),
    );
    histories.set(store, history);
  }
  return history;
}

/** The points a sparkline draws: the history, then every value seen since (live or own). */
function pointsOf(series: Map<string, HistoryPoint[]>, counter: Counter): HistoryPoint[] {
  let points = series.get(counter.id);
  if (!points) {
    points = [];
    series.set(counter.id, points);
  }
  // Idempotent (StrictMode renders twice): a value is appended only when it differs.
  if (points.at(-1)?.v !== counter.value) {
    points.push({ t: Date.now(), v: counter.value });
    if (points.length > SPARKLINE_POINTS) points.splice(0, points.length - SPARKLINE_POINTS);
  }
  return points;
}

/** SVG path data of a sparkline in a 100 × 24 box, and the area under it. */
export function sparkPath(values: readonly number[]): { line: string; area: string } {
  if (values.length === 0) return { line: '', area: '' };
  const series = values.length === 1 ? [values[0] ?? 0, values[0] ?? 0] : values;
  const min = Math.min(...series);
  const max = Math.max(...series);
  const last = series.length - 1;
  const line = series
    .map((v, i) => {
      const x = (i / last) * 100;
      // 2 units of margin so the 2 px stroke is not cut at the extremes.
      const y = max === min ? 12 : 22 - ((v - min) / (max - min)) * 20;
      return `${i === 0 ? 'M' : 'L'}${x.toFixed(1)} ${y.toFixed(1)}`;
    })
    .join('');
  return { line, area: `${line}L100 24L0 24Z` };
}

/**
 * A card's recent history at a glance, and the button to the full chart. Whether the chart is
 * open belongs to the card: its menu's History opens the same chart.
 */
export function Sparkline({
  counter,
  store,
  open,
  setOpen,
}: {
  counter: Counter;
  store: GroupStore;
  open: boolean;
  setOpen: (open: boolean) => void;
}) {
  const [series, setSeries] = useState<Map<string, HistoryPoint[]> | null>(null);

  useEffect(() => {
    let current = true;
    void historyOf(store).then((loaded) => {
      if (current) setSeries(loaded);
    });
    return () => {
      current = false;
    };
  }, [store]);

  const { line, area } = series
    ? sparkPath(pointsOf(series, counter).map((point) => point.v))
    : { line: '', area: '' };

  return (
    <div className="flex h-9 items-center gap-2">
      <svg
        viewBox="0 0 100 24"
        preserveAspectRatio="none"
        aria-hidden="true"
        className="sparkline h-7 min-w-0 flex-1 overflow-visible text-indigo-500 dark:text-indigo-400"
      >
        <path d={area} className="fill-current opacity-10" />
        <path
          d={line}
          fill="none"
          stroke="currentColor"
          strokeWidth={2}
          strokeLinejoin="round"
          strokeLinecap="round"
          vectorEffect="non-scaling-stroke"
        />
      </svg>
      <button
        type="button"
        aria-label={t`Show history`}
        title={t`Show history`}
        onClick={() => {
          setOpen(true);
        }}
        onPointerEnter={() => void loadHistoryChart()}
        className="icon-btn"
      >
        <ChartLine className="size-[18px]" />
      </button>
      {open && (
        <Suspense fallback={null}>
          <HistoryChart
            counter={counter}
            store={store}
            onClose={() => {
              setOpen(false);
            }}
          />
        </Suspense>
      )}
    </div>
  );
}

// ---- header tools ------------------------------------------------------------------------------

/**
 * The header's Activity button (its panel beside it), and the undo toast with Ctrl/Cmd+Z. The
 * group screen reserves the button's place (.activity-btn) until this chunk arrives.
 */
export function GroupTools({
  store,
  access = 'full',
}: {
  store: GroupStore;
  /** A view-only link undoes nothing; a tap link undoes its own taps (the toast and Ctrl+Z). */
  access?: AccessLevel;
}) {
  const [open, setOpen] = useState(false);

  useEffect(() => {
    const timer = setTimeout(() => void loadActivityPanel(), PREFETCH_PANEL_MS);
    return () => {
      clearTimeout(timer);
    };
  }, []);

  return (
    <>
      <button
        type="button"
        aria-expanded={open}
        onClick={() => {
          setOpen(!open);
        }}
        className="btn btn-secondary activity-btn"
      >
        <History className="size-4 shrink-0" />
        <span className="max-sm:sr-only">{t`Activity`}</span>
      </button>
      {access !== 'view' && <UndoToast store={store} />}
      {access !== 'view' && <NoteTaps store={store} />}
      {open && (
        <Suspense fallback={null}>
          <ActivityPanel
            store={store}
            access={access}
            onClose={() => {
              setOpen(false);
            }}
          />
        </Suspense>
      )}
    </>
  );
}

// ---- undo toast and Ctrl/Cmd+Z -----------------------------------------------------------------

/** How long the toast offers Undo, ms. */
export const TOAST_MS = 5_000;
/** How long the outcome of an undo stays, ms. */
const NOTICE_MS = 3_000;
/** Ctrl+Z waits this long for this tab's unconfirmed changes before undoing the last one, ms. */
const SETTLE_WAIT_MS = 5_000;

interface Toast {
  text: string;
  /** The change the toast's Undo takes back; none for notices. */
  op?: Op;
  error?: boolean;
}

/** Typing Ctrl+Z in a field undoes the typing, not a change of the group. */
function isTextField(target: EventTarget | null): boolean {
  return (
    target instanceof HTMLInputElement ||
    target instanceof HTMLTextAreaElement ||
    target instanceof HTMLSelectElement ||
    (target instanceof HTMLElement && target.isContentEditable)
  );
}

export function UndoToast({ store }: { store: GroupStore }) {
  const [toast, setToast] = useState<Toast | null>(null);
  // Changes confirmed before this chunk arrived get no toast (but can still be undone).
  const toasted = useRef(store.changesConfirmed);
  const hovered = useRef(false);

  useEffect(
    () =>
      store.subscribe(() => {
        if (store.changesConfirmed === toasted.current) return;
        toasted.current = store.changesConfirmed;
        const last = store.lastChange;
        if (last) setToast({ text: describeOp(last), op: last });
      }),
    [store],
  );

  const undo = (op: Op | undefined) => {
    if (!op) {
      setToast({ text: t`Nothing to undo` });
      return;
    }
    const text = describeOp(op);
    setToast({ text: t`Undoing ${text}…` });
    store.undo(op).then(
      () => {
        setToast({ text: t`Undone: ${text}` });
      },
      (error: unknown) => {
        setToast({ text: undoErrorMessage(error), error: true });
      },
    );
  };
  const undoRef = useRef(undo);
  undoRef.current = undo;

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (
        (event.ctrlKey || event.metaKey) &&
        !event.shiftKey &&
        !event.altKey &&
        event.key.toLowerCase() === 'z' &&
        !isTextField(event.target)
      ) {
        event.preventDefault();
        undoLast();
      }
    };
    /**
     * "My last change" may still be on its way to the server (a tap a moment ago): wait for its
     * answer, or Ctrl+Z would take back the change before it instead. Its change coming back
     * over the live channel first is not enough: only the answer makes it the last change.
     */
    const undoLast = () => {
      if (store.changesSettled) {
        undoRef.current(store.lastChange);
        return;
      }
      setToast({ text: t`Saving your last change…` });
      const started = Date.now();
      const wait = setInterval(() => {
        if (store.changesSettled) {
          clearInterval(wait);
          undoRef.current(store.lastChange);
        } else if (Date.now() - started > SETTLE_WAIT_MS) {
          clearInterval(wait);
          setToast({
            text: t`Your last change is not saved yet. Undo it once it is.`,
            error: true,
          });
        }
      }, 50);
    };
    window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener('keydown', onKey);
    };
  }, [store]);

  useEffect(() => {
    if (!toast) return;
    const hide = () => {
      // Kept while the pointer is on it: nobody should lose the Undo button under their finger.
      if (hovered.current) timer = setTimeout(hide, 1_000);
      else setToast(null);
    };
    let timer = setTimeout(hide, toast.op ? TOAST_MS : NOTICE_MS);
    return () => {
      clearTimeout(timer);
    };
  }, [toast]);

  return (
    <div
      role="status"
      aria-live="polite"
      className="pointer-events-none fixed inset-x-0 bottom-4 z-[60] flex justify-center px-4"
    >
      {toast && (
        <div
          onPointerEnter={() => {
            hovered.current = true;
          }}
          onPointerLeave={() => {
            hovered.current = false;
          }}
          className={`toast ${toast.error ? 'toast-error' : ''}`}
        >
          <p className="min-w-0 truncate" title={toast.text}>
            {toast.text}
          </p>
          {toast.op && (
            <>
              <span aria-hidden="true" className="opacity-60">
                ·
              </span>
              <button
                type="button"
                onClick={() => {
                  undo(toast.op);
                }}
                className="toast-action"
              >
                {t`Undo`}
              </button>
            </>
          )}
          <DismissButton
            onClick={() => {
              setToast(null);
            }}
            className="toast-close"
          />
        </div>
      )}
    </div>
  );
}
