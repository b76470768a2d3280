/**
 * Counting from the keyboard, a presenter clicker or a foot pedal. Pure: a key press in,
 * what it asks for out (or null: the key is not ours, or it must not fire here).
 */
import { t } from '@lingui/core/macro';

/**
 * The window event a card's menu sends to open focus mode on its counter (detail: the counter's
 * id); the keyboard layer on the group screen listens for it. An event, so the card does not
 * import focus mode's code.
 */
export const FOCUS_EVENT = 'tally:focus-mode';
/** Opens the note dialog for a counter (detail: its id): its card's menu asks for it. */
export const NOTE_EVENT = 'tally:note';
/**
 * How long a press on a counting button (a card's −/+, focus mode's) is held to open the note
 * dialog instead of counting, ms (a tap is far shorter).
 */
export const LONG_PRESS_MS = 500;

export type KeyAction =
  | { kind: 'select'; position: number }
  | { kind: 'adjust'; direction: 'increment' | 'decrement' }
  | { kind: 'help' }
  | { kind: 'focus' };

/** The parts of a KeyboardEvent the mapping reads (a plain object in the unit tests). */
export interface KeyPress {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  /** The element the key was pressed in. */
  target: {
    tagName?: string;
    isContentEditable?: boolean;
    closest?: (selector: string) => unknown;
  } | null;
}

/**
 * Typing in a field (or an editable region, or a region that owns its keys): keys are the
 * field's.
 */
export function isTypingTarget(target: KeyPress['target']): boolean {
  if (target === null) return false;
  const tag = (target.tagName ?? '').toUpperCase();
  if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT') return true;
  if (target.isContentEditable === true) return true;
  // A region that handles its own keys (reorder mode's drag and drop moves with the arrows).
  return (
    typeof target.closest === 'function' &&
    target.closest('[contenteditable], [data-owns-keys]') != null
  );
}

export function keyAction(press: KeyPress): KeyAction | null {
  if (press.ctrlKey || press.metaKey || press.altKey) return null;
  if (isTypingTarget(press.target)) return null;
  const { key } = press;
  if (key.length === 1 && key >= '1' && key <= '9') {
    return { kind: 'select', position: Number(key) };
  }
  switch (key) {
    case '+':
    case '=':
    case 'ArrowUp':
    case 'PageUp':
      return { kind: 'adjust', direction: 'increment' };
    case '-':
    case 'ArrowDown':
    case 'PageDown':
      return { kind: 'adjust', direction: 'decrement' };
    case '?':
      return { kind: 'help' };
    case 'f':
    case 'F':
      return { kind: 'focus' };
    default:
      return null;
  }
}

/** What a screen reader hears when a counter is selected: "Selected Coffees, 12". */
export function selectionAnnouncement(name: string, value: number): string {
  const counter = name === '' ? t`Counter Name` : name;
  return t`Selected ${counter}, ${value}`;
}
