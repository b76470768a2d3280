import { useLingui } from '@lingui/react/macro';
import { useEffect, useState, useSyncExternalStore, type CSSProperties } from 'react';
import type { Counter } from '../../shared/api.js';
import type { GroupStore } from '../live/groupStore.js';
import { PACE_WINDOW_MS, paceView, type PaceView } from '../lib/pace.js';

/** How often a shown pace is worked out again while no change arrives (it slides out of view). */
const TICK_MS = 5_000;

/**
 * The counter's live pace and forecast at this moment (docs/product.md#pace), or null while it is
 * idle. Worked out again on each new value and, while the last change is still in the window, now
 * and then, so the pace falls away by itself once the counter is left alone.
 */
export function usePace(
  counter: Pick<Counter, 'id' | 'value' | 'goal' | 'startValue' | 'max'>,
  store: GroupStore,
): PaceView | null {
  const samples = useSyncExternalStore(store.subscribe, () => store.paceSamples(counter.id));
  const [now, setNow] = useState(() => Date.now());
  const lastChange = samples.length > 1 ? (samples.at(-1)?.time ?? 0) : 0;

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

  return paceView(counter, samples, Math.max(now, lastChange));
}

/**
 * The counter's live pace ("12/min") and, with a goal or a maximum it is moving toward, "at this
 * pace: reached in about 3 min". Nothing while the counter is idle. Not a live region: a screen
 * reader finds it next to the value when it looks, it does not speak on every tap. `className`
 * sets its size and colour (the card's small grey line by default; focus and display mode larger).
 */
export function PaceLine({
  counter,
  store,
  className = 'text-xs text-zinc-600 dark:text-zinc-400',
  style,
  stacked = false,
}: {
  counter: Pick<Counter, 'id' | 'value' | 'goal' | 'startValue' | 'max'>;
  store: GroupStore;
  className?: string;
  style?: CSSProperties;
  /**
   * The pace and the forecast on two lines of their own, each cut short rather than wrapped
   * (the display reserves exactly two lines, so that nothing moves when they appear).
   */
  stacked?: boolean;
}) {
  const { t } = useLingui();
  const view = usePace(counter, store);
  if (view === null) return null;
  const { spoken } = view;
  const layoutClass = stacked
    ? 'flex flex-col items-center *:max-w-full *:truncate'
    : 'flex flex-wrap items-baseline justify-center gap-x-2';
  return (
    <p
      data-testid="pace"
      className={`${layoutClass} text-center tabular-nums ${className}`}
      style={style}
    >
      <span>
        <span className="sr-only">{t`Pace: ${spoken}`}</span>
        <span aria-hidden="true" className="font-semibold text-zinc-800 dark:text-zinc-200">
          {view.pace}
        </span>
      </span>
      {view.forecast !== null && <span>{view.forecast}</span>}
    </p>
  );
}
