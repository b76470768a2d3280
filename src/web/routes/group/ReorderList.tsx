/**
 * Reorder mode (issue 17): the group's counters as one list with drag handles. Drag with a mouse
 * or a finger, or from the keyboard: focus a handle, Space or Enter picks the counter up, the
 * arrow keys move it, Space or Enter drops it, Escape puts it back; each step is announced. Move
 * up and Move down buttons do the same one place at a time. Every drop is one reorder of the
 * group, shown at once and shared live (GroupStore.reorder).
 *
 * Loaded only when a member opens reorder mode: @dnd-kit is about 15 KB of the ~20 KB of this
 * chunk (gzip), which the group screen's first paint does without (test/e2e/bundle.spec.ts).
 */
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
import { useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import type { Counter } from '../../../shared/api.js';
import { icon } from '../../components/icons.js';
import type { GroupStore } from '../../live/groupStore.js';

const Grip = icon(
  'M9 5h.01M9 12h.01M9 19h.01M15 5h.01M15 12h.01M15 19h.01M8 5a1 1 0 1 0 2 0a1 1 0 1 0-2 0M8 12a1 1 0 1 0 2 0a1 1 0 1 0-2 0M8 19a1 1 0 1 0 2 0a1 1 0 1 0-2 0M14 5a1 1 0 1 0 2 0a1 1 0 1 0-2 0M14 12a1 1 0 1 0 2 0a1 1 0 1 0-2 0M14 19a1 1 0 1 0 2 0a1 1 0 1 0-2 0',
);
const ArrowUp = icon('M12 19V5M5 12l7-7 7 7');
const ArrowDown = icon('M12 5v14M19 12l-7 7-7-7');

const nameOf = (counter: Counter | undefined) =>
  counter === undefined || counter.name === '' ? 'Counter Name' : counter.name;

export function ReorderList({
  store,
  counters,
}: {
  store: GroupStore;
  /** In the group's order. */
  counters: readonly Counter[];
}) {
  const ids = counters.map((counter) => counter.id);
  const byId = new Map(counters.map((counter) => [counter.id, counter]));
  const name = (id: UniqueIdentifier) => nameOf(byId.get(String(id)));
  const place = (id: UniqueIdentifier) =>
    `position ${ids.indexOf(String(id)) + 1} of ${ids.length}`;
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

  /** Where the counter being dragged was last announced over: only a new place is news. */
  const announcedOver = useRef<UniqueIdentifier | null>(null);
  const announcements: Announcements = {
    onDragStart: ({ active }) => {
      announcedOver.current = active.id;
      return `Picked up ${name(active.id)}, ${place(active.id)}.`;
    },
    onDragOver: ({ active, over }) => {
      const at = over?.id ?? null;
      if (at === announcedOver.current) return undefined;
      announcedOver.current = at;
      return over
        ? `${name(active.id)} moved to ${place(over.id)}.`
        : `${name(active.id)} is outside the list.`;
    },
    onDragEnd: ({ active, over }) =>
      over
        ? `${name(active.id)} dropped at ${place(over.id)}.`
        : `${name(active.id)} dropped back at ${place(active.id)}.`,
    onDragCancel: ({ active }) =>
      `Moving ${name(active.id)} was cancelled. It stays at ${place(active.id)}.`,
  };

  const onDragEnd = ({ active, over }: DragEndEvent) => {
    if (!over || active.id === over.id) return;
    const from = ids.indexOf(String(active.id));
    const to = ids.indexOf(String(over.id));
    if (from === -1 || to === -1) return;
    store.reorder(arrayMove(ids, from, to));
  };

  const move = (counter: Counter, offset: -1 | 1) => {
    const from = ids.indexOf(counter.id);
    const to = from + offset;
    if (from === -1 || to < 0 || to >= ids.length) return;
    store.moveCounter(counter.id, offset);
    setMoved(`${nameOf(counter)} moved to position ${to + 1} of ${ids.length}.`);
    setRefocus(moveButtonId(counter.id, offset));
  };

  return (
    <div className="pb-6">
      <p className="muted mx-auto mb-3 max-w-2xl text-sm">
        Drag a counter by its handle, or focus a handle and press Space to pick it up, the arrow
        keys to move it, Space to drop it and Escape to cancel.
      </p>
      <DndContext
        sensors={sensors}
        collisionDetection={closestCenter}
        onDragEnd={onDragEnd}
        accessibility={{
          announcements,
          screenReaderInstructions: {
            draggable:
              'To pick up a counter, press Space or Enter. Use the arrow keys to move it, Space or Enter to drop it in its new place, or Escape to cancel.',
          },
        }}
      >
        <SortableContext items={ids} strategy={verticalListSortingStrategy}>
          {/* Its keys (arrows, Space, Escape) move counters, never count (lib/keys.ts). */}
          <ol
            aria-label="Counter order"
            data-owns-keys=""
            className="mx-auto flex max-w-2xl flex-col gap-2"
          >
            {counters.map((counter, index) => (
              <ReorderRow
                key={counter.id}
                counter={counter}
                first={index === 0}
                last={index === counters.length - 1}
                onMove={move}
              />
            ))}
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
  first,
  last,
  onMove,
}: {
  counter: Counter;
  first: boolean;
  last: boolean;
  onMove: (counter: Counter, offset: -1 | 1) => void;
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
    >
      <button
        ref={setActivatorNodeRef}
        type="button"
        {...attributes}
        {...listeners}
        aria-label={`Drag ${name}`}
        title="Drag to reorder"
        className="icon-btn cursor-grab touch-none active:cursor-grabbing"
      >
        <Grip className="size-5" />
      </button>
      <div className="min-w-0 flex-1">
        <p className="truncate font-semibold">{name}</p>
        {counter.section !== null && counter.section !== '' && (
          <p className="muted truncate text-xs">{counter.section}</p>
        )}
      </div>
      <span className="shrink-0 font-semibold tabular-nums">
        {counter.value.toLocaleString('en-US')}
      </span>
      <MoveButton
        id={moveButtonId(counter.id, -1)}
        label={`Move ${name} up`}
        disabled={first}
        onClick={() => {
          onMove(counter, -1);
        }}
      >
        <ArrowUp className="size-4" />
      </MoveButton>
      <MoveButton
        id={moveButtonId(counter.id, 1)}
        label={`Move ${name} down`}
        disabled={last}
        onClick={() => {
          onMove(counter, 1);
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
