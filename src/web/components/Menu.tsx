/**
 * A menu button and its menu, the WAI-ARIA "menu button" pattern written by hand: a headless
 * library would add kilobytes to the group screen's first load for what is a list of buttons.
 * The button says aria-haspopup="menu" and aria-expanded; the menu opens on click, Enter, Space or
 * the arrow keys with its first (or, with ArrowUp, last) item focused; ArrowUp/ArrowDown, Home and
 * End move between items; Escape closes it and gives focus back to the button; Tab, a click
 * outside or choosing an item close it too. Mounted only while open.
 */
import {
  useEffect,
  useId,
  useLayoutEffect,
  useRef,
  useState,
  type KeyboardEvent,
  type ReactNode,
} from 'react';

export interface MenuAction {
  label: string;
  icon: ReactNode;
  onSelect: () => void;
  /** Drawn in red: it removes something (it still asks before doing so). */
  danger?: boolean;
}

export function MenuButton({
  label,
  icon,
  items,
}: {
  /** The button's accessible name (it shows only an icon). */
  label: string;
  icon: ReactNode;
  items: readonly MenuAction[];
}) {
  const [open, setOpen] = useState<false | 'first' | 'last'>(false);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const menuRef = useRef<HTMLDivElement>(null);
  const menuId = useId();

  const entries = () =>
    Array.from(menuRef.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? []);

  // Focus moves into the menu in the same task as the key press or click that opened it.
  useLayoutEffect(() => {
    if (open === false) return;
    const list = entries();
    (open === 'last' ? list.at(-1) : list[0])?.focus();
  }, [open]);

  // A press anywhere else closes the menu and leaves focus where that press puts it.
  useEffect(() => {
    if (open === false) return;
    const onPointerDown = (event: PointerEvent) => {
      const target = event.target as Node | null;
      if (menuRef.current?.contains(target) || buttonRef.current?.contains(target)) return;
      setOpen(false);
    };
    document.addEventListener('pointerdown', onPointerDown);
    return () => {
      document.removeEventListener('pointerdown', onPointerDown);
    };
  }, [open]);

  const close = () => {
    setOpen(false);
    buttonRef.current?.focus();
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
        buttonRef.current?.focus();
        setOpen(false);
        return;
      default:
        return;
    }
    // The page counts with the arrow keys: inside the menu they only move between entries.
    event.preventDefault();
    next?.focus();
  };

  return (
    <div className="relative shrink-0">
      <button
        ref={buttonRef}
        type="button"
        aria-label={label}
        title={label}
        aria-haspopup="menu"
        aria-expanded={open !== false}
        aria-controls={open === false ? undefined : menuId}
        onClick={() => {
          setOpen((now) => (now === false ? 'first' : false));
        }}
        onKeyDown={(event) => {
          if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
          event.preventDefault();
          setOpen(event.key === 'ArrowUp' ? 'last' : 'first');
        }}
        className="icon-btn -mt-1 -me-1"
      >
        {icon}
      </button>
      {open !== false && (
        <div
          ref={menuRef}
          id={menuId}
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
      )}
    </div>
  );
}
