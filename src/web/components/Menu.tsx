/**
 * A menu button and its menu, the WAI-ARIA "menu button" pattern written by hand: a headless
 * library would add kilobytes to the group screen's first load for what is a list of buttons.
 * The button says aria-haspopup="menu" and aria-expanded; the menu opens on click, Enter, Space or
 * the arrow keys with its first (or, with ArrowUp, last) item focused; ArrowUp/ArrowDown, Home and
 * End move between items; Escape closes it and gives focus back to the button; Tab, a click
 * outside or choosing an item close it too. The menu (MenuList.tsx) is mounted only while open.
 */
import { lazy, Suspense, useId, useRef, useState, type ReactNode } from 'react';

// The open menu is its own chunk (the group screen's first load has no room to spare): fetched as
// a pointer or focus reaches the button, or when the screen is idle.
export const loadMenuList = () => {
  void import('./MenuList.js');
};
const MenuList = lazy(() => import('./MenuList.js').then((m) => ({ default: m.MenuList })));

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
  const menuId = useId();

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
        onPointerEnter={loadMenuList}
        onFocus={loadMenuList}
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
        <Suspense fallback={null}>
          <MenuList
            id={menuId}
            label={label}
            items={items}
            focusFirst={open}
            button={buttonRef}
            onClose={() => {
              setOpen(false);
            }}
          />
        </Suspense>
      )}
    </div>
  );
}
