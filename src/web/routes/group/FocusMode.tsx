/**
 * Focus mode, one counter full screen (docs/product.md#focus-mode). The whole screen increments; a
 * separate, smaller button decrements. Taps go through the store like the card's buttons (offline
 * queue, coalescing) and other members' taps arrive live. The screen is kept awake where the
 * browser can. A press held LONG_PRESS_MS on either, or the header's note button, opens the note
 * dialog (loaded when first opened); a tap is a click as before and counts once.
 */
import { t } from '@lingui/core/macro';
import {
  lazy,
  Suspense,
  useEffect,
  useLayoutEffect,
  useRef,
  useState,
  useSyncExternalStore,
  type PointerEvent,
} from 'react';
import type { AdjustDirection } from '../../../shared/api.js';
import { Minus, Pencil, X } from '../../components/icons/index.js';
import { PaceLine } from '../../components/PaceLine.js';
import { blockedReason } from '../../lib/capacity.js';
import { LONG_PRESS_MS } from '../../lib/keys.js';
import { directionRefused, type TapRights } from '../../lib/tap-links.js';
import type { GroupStore } from '../../live/groupStore.js';

interface Sentinel {
  release: () => Promise<void>;
}
interface WakeLockNavigator {
  wakeLock?: { request: (type: 'screen') => Promise<Sentinel> };
}

/** Keeps the screen on while mounted and the page is visible (the lock drops when it is hidden). */
function useWakeLock(): void {
  useEffect(() => {
    const wakeLock = (navigator as WakeLockNavigator).wakeLock;
    if (!wakeLock) return;
    let sentinel: Sentinel | null = null;
    let active = true;
    const request = () => {
      if (document.visibilityState !== 'visible') return;
      wakeLock.request('screen').then(
        (lock) => {
          if (active) sentinel = lock;
          else void lock.release();
        },
        () => {
          // Refused (battery saver, no permission): the screen may dim, counting still works.
        },
      );
    };
    const onVisibility = () => {
      if (document.visibilityState === 'visible') request();
    };
    request();
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      active = false;
      document.removeEventListener('visibilitychange', onVisibility);
      if (sentinel) void sentinel.release();
    };
  }, []);
}

const TapContextDialog = lazy(() =>
  import('../../components/TapContextDialog.js').then((m) => ({ default: m.TapContextDialog })),
);

/**
 * A press held LONG_PRESS_MS on a counting button asks for the note dialog in its direction; the
 * click that ends it counts nothing. Returns the handlers for the button, and whether a click is
 * the end of such a press (then it is not a tap).
 */
function useLongPress(onLongPress: (direction: AdjustDirection) => void) {
  const timer = useRef<number | undefined>(undefined);
  const held = useRef(false);
  const cancel = () => {
    window.clearTimeout(timer.current);
  };
  useEffect(() => cancel, []);
  return {
    handlers: (direction: AdjustDirection) => ({
      onPointerDown: (event: PointerEvent) => {
        if (event.button !== 0) return;
        held.current = false;
        cancel();
        timer.current = window.setTimeout(() => {
          held.current = true;
          onLongPress(direction);
        }, LONG_PRESS_MS);
      },
      onPointerUp: cancel,
      onPointerCancel: cancel,
      onPointerLeave: cancel,
      // A touch held down opens the browser's own menu otherwise.
      onContextMenu: (event: { preventDefault: () => void }) => {
        event.preventDefault();
      },
    }),
    /** Whether this click ends a long press (and resets that). */
    endsLongPress: () => {
      const was = held.current;
      held.current = false;
      return was;
    },
  };
}

let audio: AudioContext | null = null;
/** A short click, synthesised (no audio file). */
function click(): void {
  try {
    audio ??= new AudioContext();
    const oscillator = audio.createOscillator();
    const gain = audio.createGain();
    oscillator.frequency.value = 1200;
    gain.gain.setValueAtTime(0.15, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.04);
    oscillator.connect(gain).connect(audio.destination);
    oscillator.start();
    oscillator.stop(audio.currentTime + 0.05);
  } catch {
    // No Web Audio: silent.
  }
}

export function FocusMode({
  store,
  counterId,
  rights,
  onClose,
}: {
  store: GroupStore;
  counterId: string;
  /** The directions this page may count in (a tap link may allow only one). */
  rights: TapRights;
  onClose: () => void;
}) {
  const state = useSyncExternalStore(store.subscribe, store.getState);
  const counter = state.counters?.find((c) => c.id === counterId) ?? null;
  const [sound, setSound] = useState(false);
  /** The note dialog's first direction while it is open. */
  const [noting, setNoting] = useState<AdjustDirection | null>(null);
  const press = useLongPress((direction) => {
    if (rights[direction]) setNoting(direction);
  });
  const ref = useRef<HTMLDialogElement>(null);
  const plusRef = useRef<HTMLButtonElement>(null);
  useWakeLock();

  useLayoutEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    plusRef.current?.focus();
    return () => {
      if (dialog?.open) dialog.close();
    };
  }, []);

  // Deleted by someone else: nothing left to count.
  const gone = state.counters !== null && counter === null;
  useEffect(() => {
    if (gone) onClose();
  }, [gone, onClose]);
  if (!counter) return null;

  const tap = (direction: 'increment' | 'decrement') => {
    if (press.endsLongPress()) return;
    if (!rights[direction] || blockedReason(counter, direction) !== null) return;
    store.adjust(counter.id, direction);
    if ('vibrate' in navigator) navigator.vibrate(10);
    if (sound) click();
  };
  const incBlocked = rights.increment
    ? blockedReason(counter, 'increment')
    : directionRefused('increment');
  const decBlocked = blockedReason(counter, 'decrement');
  const name = counter.name === '' ? t`Counter Name` : counter.name;
  const directions = (['decrement', 'increment'] as const).filter((direction) => rights[direction]);
  const { incrementStep, decrementStep, value } = counter;

  return (
    <dialog
      ref={ref}
      aria-label={t`Focus mode: ${name}`}
      onClose={(event) => {
        // The note dialog's own close reaches this handler too (React passes it up its tree).
        if (event.target === event.currentTarget) onClose();
      }}
      data-testid="focus-mode"
      data-focus-mode=""
      className="focus-mode fixed inset-0 m-0 flex size-full max-h-none max-w-none flex-col bg-white p-0 text-zinc-900 dark:bg-zinc-950 dark:text-zinc-100"
    >
      <div className="flex items-center gap-2 p-3 sm:p-4">
        <h2 className="min-w-0 flex-1 truncate text-lg font-semibold sm:text-2xl">{name}</h2>
        <label className="flex min-h-11 cursor-pointer items-center gap-2 px-2 text-sm">
          <input
            type="checkbox"
            checked={sound}
            onChange={(event) => {
              setSound(event.currentTarget.checked);
            }}
            className="size-4"
          />
          {t`Click sound`}
        </label>
        {directions.length > 0 && (
          <button
            type="button"
            onClick={() => {
              setNoting(rights.increment ? 'increment' : 'decrement');
            }}
            aria-label={t`Count with a note`}
            className="icon-btn"
          >
            <Pencil className="size-5" />
          </button>
        )}
        <button
          type="button"
          onClick={() => ref.current?.close()}
          aria-label={t`Close focus mode`}
          className="icon-btn"
        >
          <X className="size-6" />
        </button>
      </div>
      <button
        ref={plusRef}
        type="button"
        aria-label={t`Increment ${name} by ${incrementStep}`}
        aria-disabled={incBlocked !== null || undefined}
        title={incBlocked ?? undefined}
        onClick={() => {
          tap('increment');
        }}
        {...press.handlers('increment')}
        className="flex min-h-0 flex-1 touch-manipulation [-webkit-touch-callout:none] flex-col items-center justify-center gap-2 select-none focus-visible:outline-4 focus-visible:-outline-offset-4 focus-visible:outline-indigo-500 motion-safe:transition-colors motion-safe:active:bg-indigo-50 dark:motion-safe:active:bg-indigo-950"
      >
        <span
          data-testid="focus-value"
          className="text-[min(30vw,40vh)] leading-none font-bold tracking-tight tabular-nums"
        >
          {counter.value}
        </span>
        <span className="text-base text-zinc-600 dark:text-zinc-300">
          {incBlocked ?? t`Tap anywhere to add ${incrementStep}`}
        </span>
      </button>
      <PaceLine
        counter={counter}
        store={store}
        className="px-4 text-lg text-zinc-700 sm:text-2xl dark:text-zinc-300"
      />
      <p role="status" className="sr-only">
        {`${name}, ${value}`}
      </p>
      <div className="flex justify-center p-4 pb-[max(1rem,env(safe-area-inset-bottom))]">
        {rights.decrement ? (
          <button
            type="button"
            aria-label={t`Decrement ${name} by ${decrementStep}`}
            aria-disabled={decBlocked !== null || undefined}
            title={decBlocked ?? undefined}
            onClick={() => {
              tap('decrement');
            }}
            {...press.handlers('decrement')}
            className="btn btn-secondary min-h-12 min-w-32 touch-manipulation text-lg tabular-nums select-none [-webkit-touch-callout:none]"
          >
            <Minus className="size-5" />
            {counter.decrementStep}
          </button>
        ) : (
          <p className="min-h-12 text-base text-zinc-600 dark:text-zinc-300">
            {directionRefused('decrement')}
          </p>
        )}
      </div>
      {noting !== null && (
        <Suspense fallback={null}>
          <TapContextDialog
            counter={counter}
            direction={rights[noting] ? noting : (directions[0] ?? noting)}
            directions={directions}
            onCount={(direction, extra) => {
              store.adjust(counter.id, direction, extra);
            }}
            onClose={() => {
              setNoting(null);
              // A mouse let go over the dialog sends its click elsewhere: the next tap is a tap.
              press.endsLongPress();
              plusRef.current?.focus();
            }}
          />
        </Suspense>
      )}
    </dialog>
  );
}
