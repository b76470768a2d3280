/**
 * The open menu of a MenuButton (Menu.tsx): its items, focus within them, and how it closes.
 * A chunk of its own, loaded before the menu is first opened.
 */
import { useEffect, useLayoutEffect, useRef, type KeyboardEvent, type RefObject } from 'react';
import type { MenuAction } from './Menu.js';

export function MenuList({
  id,
  label,
  items,
  focusFirst,
  button,
  onClose,
}: {
  id: string;
  label: string;
  items: readonly MenuAction[];
  /** Which item has focus as the menu opens: the first, or (opened with ArrowUp) the last. */
  focusFirst: 'first' | 'last';
  /** The menu's button: focus goes back to it, and a press on it is not a press outside. */
  button: RefObject<HTMLButtonElement | null>;
  onClose: () => void;
}) {
  const menuRef = useRef<HTMLDivElement>(null);

  const entries = () =>
    Array.from(menuRef.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? []);

  // Focus moves into the menu before it is painted.
  useLayoutEffect(() => {
    const list = entries();
    (focusFirst === 'last' ? list.at(-1) : list[0])?.focus();
  }, [focusFirst]);

  // A press anywhere else closes the menu and leaves focus where that press puts it.
  useEffect(() => {
    const onPointerDown = (event: PointerEvent) => {
      const target = event.target as Node | null;
      if (menuRef.current?.contains(target) || button.current?.contains(target)) return;
      onClose();
    };
    document.addEventListener('pointerdown', onPointerDown);
    return () => {
      document.removeEventListener('pointerdown', onPointerDown);
    };
  }, [button, onClose]);

  const close = () => {
    onClose();
    button.current?.focus();
  };

  const onMenuKey = (event: KeyboardEvent) => {
    const list = entries();
    const index = list.indexOf(document.activeElement as HTMLElement);
    let next: HTMLElement | undefined;
    switch (event.key) {
      case 'ArrowDown':
        next = list[(index + 1) % list.length];
        break;
      case 'ArrowUp':
        next = list[(index - 1 + list.length) % list.length];
        break;
      case 'Home':
        next = list[0];
        break;
      case 'End':
        next = list.at(-1);
        break;
      case 'Escape':
        event.preventDefault();
        // The page's own Escape handlers (dialogs, focus mode) must not see this one.
        event.stopPropagation();
        close();
        return;
      case 'Tab':
        // From the button, the browser's own Tab then goes on to the next control of the page.
        button.current?.focus();
        onClose();
        return;
      default:
        return;
    }
    // The page counts with the arrow keys: inside the menu they only move between entries.
    event.preventDefault();
    next?.focus();
  };

  return (
    <div
      ref={menuRef}
      id={id}
      role="menu"
      aria-label={label}
      data-owns-keys=""
      onKeyDown={onMenuKey}
      className="absolute top-full end-0 z-30 mt-1 flex w-max min-w-48 flex-col rounded-xl border border-zinc-200 bg-white p-1 shadow-lg dark:border-zinc-700 dark:bg-zinc-900 dark:shadow-black/40"
    >
      {items.map((item) => (
        <button
          key={item.label}
          type="button"
          role="menuitem"
          tabIndex={-1}
          onClick={() => {
            // Focus is back on the menu button first, so a dialog the item opens gives it
            // back there when it closes.
            close();
            item.onSelect();
          }}
          className={`flex items-center gap-2.5 rounded-lg px-3 py-2.5 text-start text-sm font-medium whitespace-nowrap ${
            item.danger === true
              ? 'text-red-700 hover:bg-red-50 focus:bg-red-50 dark:text-red-300 dark:hover:bg-red-950/60 dark:focus:bg-red-950/60'
              : 'text-zinc-800 hover:bg-zinc-100 focus:bg-zinc-100 dark:text-zinc-100 dark:hover:bg-zinc-800 dark:focus:bg-zinc-800'
          }`}
        >
          {item.icon}
          {item.label}
        </button>
      ))}
    </div>
  );
}
