import { useEffect, useState, useSyncExternalStore } from 'react';
import type { Counter } from '../../shared/api.js';
import type { GroupStore } from '../live/groupStore.js';
import { PACE_WINDOW_MS, paceView } from '../lib/pace.js';

/** How often a shown pace is worked out again while no change arrives (it slides out of view). */
const TICK_MS = 5_000;

/**
 * Issue 18: the counter's live pace ("12/min") and, with a goal or a maximum it is moving toward,
 * "at this pace: reached in about 3 min". Nothing while the counter is idle. Not a live region:
 * a screen reader finds it next to the value when it looks, it does not speak on every tap.
 */
export function PaceLine({
  counter,
  store,
}: {
  counter: Pick<Counter, 'id' | 'value' | 'goal' | 'startValue' | 'max'>;
  store: GroupStore;
}) {
  const samples = useSyncExternalStore(store.subscribe, () => store.paceSamples(counter.id));
  const [now, setNow] = useState(() => Date.now());
  const lastChange = samples.length > 1 ? (samples.at(-1)?.time ?? 0) : 0;

  // A new value: measure at once. While the last change is still in the window, measure again now
  // and then so the pace falls away by itself once the counter is left alone.
  useEffect(() => {
    setNow(Date.now());
    if (Date.now() - lastChange > PACE_WINDOW_MS) return;
    const timer = window.setInterval(() => {
      const time = Date.now();
      setNow(time);
      if (time - lastChange > PACE_WINDOW_MS) window.clearInterval(timer);
    }, TICK_MS);
    return () => {
      window.clearInterval(timer);
    };
  }, [lastChange]);

  const view = paceView(counter, samples, Math.max(now, lastChange));
  if (view === null) return null;
  return (
    <p
      data-testid="pace"
      className="flex flex-wrap items-baseline justify-center gap-x-2 text-center text-xs text-zinc-600 tabular-nums dark:text-zinc-400"
    >
      <span>
        <span className="sr-only">Pace: {view.spoken}</span>
        <span aria-hidden="true" className="font-semibold text-zinc-800 dark:text-zinc-200">
          {view.pace}
        </span>
      </span>
      {view.forecast !== null && <span>{view.forecast}</span>}
    </p>
  );
}
