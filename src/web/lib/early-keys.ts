/**
 * Keys pressed on the group screen before keyboard counting has loaded. Its chunk is fetched
 * beside the first paint, so a member (or a clicker) quick off the mark can press a key before
 * it listens; the group screen holds those keys and keyboard counting takes them over when it
 * mounts, so a first key is never lost.
 *
 * One group screen is shown at a time, so the holding is a single module-level state.
 */
import type { KeyPress } from './keys.js';

/** At most this many keys are held; later ones are dropped (a chunk loads well before). */
export const EARLY_KEYS_MAX = 32;

let held: KeyPress[] | null = null;
/** Keyboard counting is mounted and listening itself: nothing needs holding. */
let countingListens = false;

function onEarlyKey(event: KeyboardEvent): void {
  if (held === null || event.defaultPrevented || held.length >= EARLY_KEYS_MAX) return;
  held.push({
    key: event.key,
    ctrlKey: event.ctrlKey,
    metaKey: event.metaKey,
    altKey: event.altKey,
    target: event.target instanceof HTMLElement ? event.target : null,
  });
}

function stopHolding(): void {
  if (held === null) return;
  held = null;
  window.removeEventListener('keydown', onEarlyKey);
}

/**
 * The group screen starts holding keys as it mounts (unless keyboard counting already
 * listens); the returned function stops and forgets them as the screen goes.
 */
export function holdEarlyKeys(): () => void {
  if (!countingListens && held === null) {
    held = [];
    window.addEventListener('keydown', onEarlyKey);
  }
  return stopHolding;
}

/**
 * Keyboard counting, now listening, takes the keys held so far (in the order pressed); none
 * is held after this until `stopListening`.
 */
export function takeEarlyKeys(): KeyPress[] {
  countingListens = true;
  const keys = held ?? [];
  stopHolding();
  return keys;
}

/** Keyboard counting has gone (the screen is leaving): the next screen holds keys again. */
export function stopListening(): void {
  countingListens = false;
}
