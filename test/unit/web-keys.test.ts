import { describe, expect, it } from 'vitest';
import {
  isTypingTarget,
  keyAction,
  selectionAnnouncement,
  type KeyPress,
} from '../../src/web/lib/keys.js';

const press = (key: string, extra: Partial<KeyPress> = {}): KeyPress => ({
  key,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  target: { tagName: 'BODY' },
  ...extra,
});

describe('keyAction', () => {
  it('selects positions 1 to 9 with the digits, not 0', () => {
    for (let digit = 1; digit <= 9; digit++) {
      expect(keyAction(press(String(digit)))).toEqual({ kind: 'select', position: digit });
    }
    expect(keyAction(press('0'))).toBeNull();
  });

  it('increments with +, =, ArrowUp and PageUp', () => {
    for (const key of ['+', '=', 'ArrowUp', 'PageUp']) {
      expect(keyAction(press(key))).toEqual({ kind: 'adjust', direction: 'increment' });
    }
  });

  it('decrements with -, ArrowDown and PageDown', () => {
    for (const key of ['-', 'ArrowDown', 'PageDown']) {
      expect(keyAction(press(key))).toEqual({ kind: 'adjust', direction: 'decrement' });
    }
  });

  it('opens help with ? and focus mode with f', () => {
    expect(keyAction(press('?'))).toEqual({ kind: 'help' });
    expect(keyAction(press('f'))).toEqual({ kind: 'focus' });
    expect(keyAction(press('F'))).toEqual({ kind: 'focus' });
  });

  it('ignores other keys', () => {
    for (const key of ['a', 'Enter', ' ', 'Tab', 'Escape', 'ArrowLeft']) {
      expect(keyAction(press(key))).toBeNull();
    }
  });

  it('never fires with Ctrl, Meta or Alt held', () => {
    expect(keyAction(press('+', { ctrlKey: true }))).toBeNull();
    expect(keyAction(press('1', { metaKey: true }))).toBeNull();
    expect(keyAction(press('ArrowUp', { altKey: true }))).toBeNull();
  });

  it('never fires while typing in a field or editable region', () => {
    for (const tagName of ['INPUT', 'TEXTAREA', 'SELECT', 'input']) {
      expect(keyAction(press('+', { target: { tagName } }))).toBeNull();
    }
    expect(
      keyAction(press('1', { target: { tagName: 'DIV', isContentEditable: true } })),
    ).toBeNull();
    expect(keyAction(press('1', { target: { tagName: 'SPAN', closest: () => ({}) } }))).toBeNull();
  });
});

describe('isTypingTarget', () => {
  it('is false for buttons, the page and no target', () => {
    expect(isTypingTarget(null)).toBe(false);
    expect(isTypingTarget({ tagName: 'BUTTON', closest: () => null })).toBe(false);
    expect(isTypingTarget({ tagName: 'BODY' })).toBe(false);
  });

  it('leaves the arrows to reorder mode: a drag handle inside a region that owns its keys', () => {
    const handle = {
      tagName: 'BUTTON',
      closest: (selector: string) => (selector.includes('[data-owns-keys]') ? {} : null),
    };
    expect(isTypingTarget(handle)).toBe(true);
    expect(keyAction(press('ArrowUp', { target: handle }))).toBeNull();
  });
});

describe('selectionAnnouncement', () => {
  it('names the counter and its value', () => {
    expect(selectionAnnouncement('Coffees', 12)).toBe('Selected Coffees, 12');
    expect(selectionAnnouncement('', 0)).toBe('Selected Counter Name, 0');
  });
});
