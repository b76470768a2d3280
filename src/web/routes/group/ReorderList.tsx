/**
 * Reorder mode: the group's counters as the grid shows them, section by section under the
 * sections' headings, with drag handles. Drag with a mouse or a finger, or from the keyboard:
 * focus a handle, Space or Enter picks the counter up, the arrow keys move it, Space or Enter drops
 * it, Escape puts it back; each step is announced. Move up and Move down buttons do the same one
 * place at a time. A counter moved past the edge of its section joins the next one (or leaves its
 * section for the counters without one there), so every move shows in the grid: the grid places a
 * section where its first counter is and keeps its counters together, whatever the order.
 * Every drop is one reorder of the group (GroupStore.reorder) and, when the counter changed
 * section, one change of its section; both are shown at once and shared live.
 *
 * Loaded only when a member opens reorder mode: @dnd-kit is about 15 KB of the ~20 KB of this
 * chunk (gzip), which the group screen's first paint does without (test/e2e/bundle.spec.ts).
 */
import { formatNumber } from '../../i18n/format.js';
import { t } from '@lingui/core/macro';
import {
  closestCenter,
  DndContext,
  KeyboardSensor,
  PointerSensor,
  useSensor,
  useSensors,
  type Announcements,
  type DragEndEvent,
  type UniqueIdentifier,
} from '@dnd-kit/core';
import {
  arrayMove,
  SortableContext,
  sortableKeyboardCoordinates,
  useSortable,
  verticalListSortingStrategy,
} from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import { Fragment, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import type { Counter } from '../../../shared/api.js';
import { ArrowDown, ArrowUp, Grip } from '../../components/icons/index.js';
import { layoutBlocks } from '../../lib/sections.js';
import type { GroupStore } from '../../live/groupStore.js';

const nameOf = (counter: Counter | undefined) =>
  counter === undefined || counter.name === '' ? t`Counter Name` : counter.name;

/** "position 2 of 5, in Entrances": a place in the list, as screen readers hear it. */
const placeText = (position: number, total: number, section: string | null) =>
  section === null
    ? t`position ${position} of ${total}`
    : t`position ${position} of ${total}, in ${section}`;

/** A counter as the list shows it: in a block (a section, or a run without one). */
interface Row {
  counter: Counter;
  /** The block's index in the grid's blocks. */
  block: number;
  /** The block's section, or null for counters without one. */
  section: string | null;
}

/**
 * The grid's blocks, flattened: the counters top to bottom as the grid shows them. (The blocks'
 * places do not depend on the sections' maximums, so none are given.)
 */
function rowsOf(counters: readonly Counter[]): Row[] {
  return layoutBlocks(counters, {}).flatMap((block, index) =>
    block.counters.map((counter) => ({
      counter,
      block: index,
      section: block.kind === 'section' ? block.name : null,
    })),
  );
}

/**
 * Where a move of the row at `from` to `to` (indices in `rows`) leaves the group: the new order
 * (the rows as they will be shown, which the grid reproduces) and the moved counter's section.
 * A counter dropped onto another row takes that row's block; one moved a single place past the
 * edge of its block (Move up on the first, Move down on the last) joins the neighbouring block.
 */
export function moveRow(
  rows: readonly Row[],
  from: number,
  to: number,
): { order: string[]; section: string | null } | null {
  const moving = rows[from];
  const target = rows[to];
  if (!moving || !target || from === to) return null;
  const ids = rows.map((row) => row.counter.id);
  if (target.block === moving.block) {
    return { order: arrayMove(ids, from, to), section: moving.section };
  }
  // One place over the edge: the counter stays where it is in the order and changes block, so it
  // shows right past the edge (first of the next block, last of the one before).
  if (Math.abs(to - from) === 1) return { order: ids, section: target.section };
  return { order: arrayMove(ids, from, to), section: target.section };
}

export function ReorderList({
  store,
  counters,
}: {
  store: GroupStore;
  /** In the group's order. */
  counters: readonly Counter[];
}) {
  const rows = rowsOf(counters);
  const ids = rows.map((row) => row.counter.id);
  const byId = new Map(rows.map((row) => [row.counter.id, row]));
  const name = (id: UniqueIdentifier) => nameOf(byId.get(String(id))?.counter);
  const place = (id: UniqueIdentifier, section = byId.get(String(id))?.section ?? null) =>
    placeText(ids.indexOf(String(id)) + 1, ids.length, section);
  /** What the Move up / Move down buttons did, for screen readers (dnd-kit says the rest). */
  const [moved, setMoved] = useState('');
  /** The button to keep the focus on once its row has moved. */
  const [refocus, setRefocus] = useState<string | null>(null);

  useLayoutEffect(() => {
    if (refocus === null) return;
    document.getElementById(refocus)?.focus();
    setRefocus(null);
  }, [refocus, counters]);

  const sensors = useSensors(
    // A few pixels before a drag starts, so a tap on a handle stays a tap (and a focus).
    useSensor(PointerSensor, { activationConstraint: { distance: 4 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );

  /** Applies a move: the counter's new section first (if it changed), then the new order. */
  const apply = (counter: Counter, move: { order: string[]; section: string | null }) => {
    const current = counter.section === '' ? null : counter.section;
    if (current !== move.section) {
      store.updateCounter(counter.id, { section: move.section });
    }
    store.reorder(move.order);
  };

  /** Where the counter being dragged was last announced over: only a new place is news. */
  const announcedOver = useRef<UniqueIdentifier | null>(null);
  /** Where a drop onto `over` puts the counter: its place in the new order, and its section. */
  const landing = (active: UniqueIdentifier, over: UniqueIdentifier) => {
    const move = moveRow(rows, ids.indexOf(String(active)), ids.indexOf(String(over)));
    if (move === null) return place(active);
    return placeIn(move, String(active));
  };
  const placeIn = (move: { order: string[]; section: string | null }, id: string) =>
    placeText(move.order.indexOf(id) + 1, ids.length, move.section);
  const announcements: Announcements = {
    onDragStart: ({ active }) => {
      announcedOver.current = active.id;
      const counter = name(active.id);
      const at = place(active.id);
      return t`Picked up ${counter}, ${at}.`;
    },
    onDragOver: ({ active, over }) => {
      const at = over?.id ?? null;
      if (at === announcedOver.current) return undefined;
      announcedOver.current = at;
      const counter = name(active.id);
      if (!over) return t`${counter} is outside the list.`;
      const to = landing(active.id, over.id);
      return t`${counter} moved to ${to}.`;
    },
    onDragEnd: ({ active, over }) => {
      const counter = name(active.id);
      if (!over) {
        const at = place(active.id);
        return t`${counter} dropped back at ${at}.`;
      }
      const to = landing(active.id, over.id);
      return t`${counter} dropped at ${to}.`;
    },
    onDragCancel: ({ active }) => {
      const counter = name(active.id);
      const at = place(active.id);
      return t`Moving ${counter} was cancelled. It stays at ${at}.`;
    },
  };

  const onDragEnd = ({ active, over }: DragEndEvent) => {
    if (!over || active.id === over.id) return;
    const from = ids.indexOf(String(active.id));
    const move = moveRow(rows, from, ids.indexOf(String(over.id)));
    const row = rows[from];
    if (move !== null && row) apply(row.counter, move);
  };

  const move = (index: number, offset: -1 | 1) => {
    const row = rows[index];
    const next = moveRow(rows, index, index + offset);
    if (!row || next === null) return;
    apply(row.counter, next);
    const counter = nameOf(row.counter);
    const to = placeIn(next, row.counter.id);
    setMoved(t`${counter} moved to ${to}.`);
    setRefocus(moveButtonId(row.counter.id, offset));
  };

  const sectioned = rows.some((row) => row.section !== null);
  return (
    <div className="pb-6">
      <p className="muted mx-auto mb-3 max-w-2xl text-sm">
        {t`Drag a counter by its handle, or focus a handle and press Space to pick it up, the arrow keys to move it, Space to drop it and Escape to cancel.`}
        {sectioned &&
          ` ${t`Moved past the first or last counter of a section, a counter joins the next section.`}`}
      </p>
      <DndContext
        sensors={sensors}
        collisionDetection={closestCenter}
        onDragEnd={onDragEnd}
        accessibility={{
          announcements,
          screenReaderInstructions: {
            draggable: t`To pick up a counter, press Space or Enter. Use the arrow keys to move it, Space or Enter to drop it in its new place, or Escape to cancel.`,
          },
        }}
      >
        <SortableContext items={ids} strategy={verticalListSortingStrategy}>
          {/* Its keys (arrows, Space, Escape) move counters, never count (lib/keys.ts). */}
          <ol
            aria-label={t`Counter order`}
            data-owns-keys=""
            className="mx-auto flex max-w-2xl flex-col gap-2"
          >
            {rows.map((row, index) => {
              const startsBlock = index === 0 || rows[index - 1]?.block !== row.block;
              return (
                <Fragment key={row.counter.id}>
                  {startsBlock && sectioned && (
                    <li
                      aria-hidden="true"
                      data-testid="reorder-section"
                      className={`reorder-heading ${index === 0 ? '' : 'mt-3'}`}
                    >
                      {row.section ?? t`Not in a section`}
                    </li>
                  )}
                  <ReorderRow
                    counter={row.counter}
                    section={row.section}
                    first={index === 0}
                    last={index === rows.length - 1}
                    onMove={(offset) => {
                      move(index, offset);
                    }}
                  />
                </Fragment>
              );
            })}
          </ol>
        </SortableContext>
      </DndContext>
      <p role="status" className="sr-only">
        {moved}
      </p>
    </div>
  );
}

const moveButtonId = (counterId: string, offset: -1 | 1) =>
  `move-${offset < 0 ? 'up' : 'down'}-${counterId}`;

function ReorderRow({
  counter,
  section,
  first,
  last,
  onMove,
}: {
  counter: Counter;
  /** Its block's section (said to screen readers with its name; the heading shows it). */
  section: string | null;
  first: boolean;
  last: boolean;
  onMove: (offset: -1 | 1) => void;
}) {
  const {
    attributes,
    listeners,
    setNodeRef,
    setActivatorNodeRef,
    transform,
    transition,
    isDragging,
  } = useSortable({ id: counter.id });
  const name = nameOf(counter);
  return (
    <li
      ref={setNodeRef}
      style={{ transform: CSS.Translate.toString(transform), transition }}
      className={`card flex items-center gap-2 p-2 sm:gap-3 sm:p-3 ${
        isDragging ? 'relative z-10 shadow-lg ring-2 ring-indigo-500' : ''
      }`}
      data-testid="reorder-row"
      data-section={section ?? ''}
    >
      <button
        ref={setActivatorNodeRef}
        type="button"
        {...attributes}
        {...listeners}
        aria-label={t`Drag ${name}`}
        title={t`Drag to reorder`}
        className="icon-btn cursor-grab touch-none active:cursor-grabbing"
      >
        <Grip className="size-5" />
      </button>
      <div className="min-w-0 flex-1">
        <p className="truncate font-semibold">{name}</p>
        {section !== null && <span className="sr-only">{t`, in ${section}`}</span>}
      </div>
      <span className="shrink-0 font-semibold tabular-nums">{formatNumber(counter.value)}</span>
      <MoveButton
        id={moveButtonId(counter.id, -1)}
        label={t`Move ${name} up`}
        disabled={first}
        onClick={() => {
          onMove(-1);
        }}
      >
        <ArrowUp className="size-4" />
      </MoveButton>
      <MoveButton
        id={moveButtonId(counter.id, 1)}
        label={t`Move ${name} down`}
        disabled={last}
        onClick={() => {
          onMove(1);
        }}
      >
        <ArrowDown className="size-4" />
      </MoveButton>
    </li>
  );
}

/** aria-disabled rather than disabled: the focus stays on it when its row reaches an end. */
function MoveButton({
  id,
  label,
  disabled,
  onClick,
  children,
}: {
  id: string;
  label: string;
  disabled: boolean;
  onClick: () => void;
  children: ReactNode;
}) {
  return (
    <button
      id={id}
      type="button"
      aria-label={label}
      title={label}
      aria-disabled={disabled}
      onClick={() => {
        if (!disabled) onClick();
      }}
      className="icon-btn aria-disabled:cursor-not-allowed aria-disabled:opacity-40"
    >
      {children}
    </button>
  );
}
