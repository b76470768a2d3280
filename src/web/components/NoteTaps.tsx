/**
 * Taps with a note or an earlier time (docs/product.md#notes-and-earlier-times): a long press on
 * a card's − or + (or its menu's "Count with a note…") opens the note dialog. It listens on the
 * document from the header's tools chunk, loaded after the group screen shows, so the cards and
 * the plain tap carry no code for it: a tap is a click as before, and only a press held
 * LONG_PRESS_MS opens the dialog instead (its click then counts nothing).
 */
import { lazy, Suspense, useEffect, useState } from 'react';
import type { AdjustDirection } from '../../shared/api.js';
import { LONG_PRESS_MS, NOTE_EVENT } from '../lib/keys.js';
import { tapRights } from '../lib/tap-links.js';
import type { GroupStore } from '../live/groupStore.js';

const TapContextDialog = lazy(() =>
  import('./TapContextDialog.js').then((m) => ({ default: m.TapContextDialog })),
);

interface Noting {
  counterId: string;
  direction: AdjustDirection;
}

/** The card's counter and direction of a − or + button, if the event is on one. */
function pressedOf(target: EventTarget | null): Noting | null {
  if (!(target instanceof Element)) return null;
  const button = target.closest('.adjust-btn');
  const card = button?.closest('article[id^="counter-"]');
  if (!button || !card) return null;
  const direction = button.classList.contains('adjust-plus') ? 'increment' : 'decrement';
  return { counterId: card.id.slice('counter-'.length), direction };
}

export function NoteTaps({ store }: { store: GroupStore }) {
  const [noting, setNoting] = useState<Noting | null>(null);

  useEffect(() => {
    let timer: number | undefined;
    let held = false;
    const cancel = () => {
      clearTimeout(timer);
    };
    const down = (event: PointerEvent) => {
      const pressed = pressedOf(event.target);
      if (!pressed) return;
      held = false;
      timer = window.setTimeout(() => {
        held = true;
        setNoting(pressed);
      }, LONG_PRESS_MS);
    };
    // The click that ends a long press is not a tap.
    const click = (event: MouseEvent) => {
      cancel();
      if (!held || !pressedOf(event.target)) return;
      held = false;
      event.stopPropagation();
      event.preventDefault();
    };
    const menu = (event: Event) => {
      if (pressedOf(event.target)) event.preventDefault();
    };
    const fromMenu = (event: Event) => {
      const counterId = (event as CustomEvent<string>).detail;
      const state = store.getState();
      const counter = state.counters?.find((item) => item.id === counterId);
      // A down-only tap link's dialog starts (and stays) on "take away".
      const rights = tapRights(state.access, state.link);
      if (counter)
        setNoting({ counterId, direction: rights.increment ? 'increment' : 'decrement' });
    };
    document.addEventListener('pointerdown', down, true);
    document.addEventListener('pointerup', cancel, true);
    document.addEventListener('pointercancel', cancel, true);
    document.addEventListener('click', click, true);
    document.addEventListener('contextmenu', menu, true);
    window.addEventListener(NOTE_EVENT, fromMenu);
    return () => {
      cancel();
      document.removeEventListener('pointerdown', down, true);
      document.removeEventListener('pointerup', cancel, true);
      document.removeEventListener('pointercancel', cancel, true);
      document.removeEventListener('click', click, true);
      document.removeEventListener('contextmenu', menu, true);
      window.removeEventListener(NOTE_EVENT, fromMenu);
    };
  }, [store]);

  const state = store.getState();
  const counter = noting && state.counters?.find((item) => item.id === noting.counterId);
  if (!noting || !counter) return null;
  const rights = tapRights(state.access, state.link);
  return (
    <Suspense fallback={null}>
      <TapContextDialog
        counter={counter}
        direction={noting.direction}
        directions={(['decrement', 'increment'] as const).filter((direction) => rights[direction])}
        onCount={(direction, extra) => {
          store.adjust(counter.id, direction, extra);
        }}
        onClose={() => {
          setNoting(null);
        }}
      />
    </Suspense>
  );
}
