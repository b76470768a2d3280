import {
  ArrowDownToLine,
  Ban,
  ChartLine,
  Check,
  CircleAlert,
  Clock,
  Gauge,
  ImageOff,
  ImagePlus,
  Maximize,
  Minus,
  MoreVertical,
  Plus,
  RotateCcw,
  Sliders,
  Trash,
  TriangleAlert,
} from './icons/index.js';
import { useLingui } from '@lingui/react/macro';
import { lazy, memo, Suspense, useId, useState, type ReactNode } from 'react';
import type { Counter } from '../../shared/api.js';
import { MIN_STEP } from '../../shared/limits.js';
import { parseIntegerInput, sanitizeText } from '../../shared/rules.js';
import { counterImageFailed } from '../i18n/messages.js';
import type { GroupStore } from '../live/groupStore.js';
import {
  atMinimum,
  blockedReason,
  capacityOf,
  type Capacity,
  clampToLimits,
  goalProgress,
  partialRoom,
  periodFigures,
} from '../lib/capacity.js';
import { FOCUS_EVENT, NOTE_EVENT } from '../lib/keys.js';
import { tapRights, type TapRights } from '../lib/tap-links.js';
import { card } from '../lib/ui.js';
import { InlineEdit } from './InlineEdit.js';
import { MenuButton } from './Menu.js';
import { PaceLine } from './PaceLine.js';
import { formatNumber, numbersInOrder } from '../i18n/format.js';

// Opened rarely: loaded on idle after the group screen shows (see prefetchCardEditors).
const loadConfirmDialog = () => import('./ConfirmDialog.js');
const loadImageUrlDialog = () => import('./ImageUrlDialog.js');
const ConfirmDialog = lazy(() => loadConfirmDialog().then((m) => ({ default: m.ConfirmDialog })));
const ThumbnailDialog = lazy(() =>
  loadImageUrlDialog().then((m) => ({ default: m.ThumbnailDialog })),
);
// Goal, limits, period and section: opened from the card's menu.
const loadSettingsDialog = () => import('./CounterSettingsDialog.js');
const CounterSettingsDialog = lazy(() =>
  loadSettingsDialog().then((m) => ({ default: m.CounterSettingsDialog })),
);

// Sparklines and the undo toast (Group.tsx), one chunk loaded right after first paint.
export const loadExtras = () => import('./GroupExtras.js');
const Sparkline = lazy(() => loadExtras().then((m) => ({ default: m.Sparkline })));

export function prefetchCardEditors(): void {
  void loadConfirmDialog();
  void loadImageUrlDialog();
  void loadSettingsDialog();
}

export const CounterCard = memo(function CounterCard({
  counter,
  store,
  readOnly = false,
  rights = tapRights(readOnly ? 'view' : 'full', null),
  unsent = false,
  sectionMax = null,
  sectionTotal = 0,
}: {
  counter: Counter;
  store: GroupStore;
  /** View-only or tap link access: everything shown, nothing editable. */
  readOnly?: boolean;
  /** The directions its −/+ buttons count in (a tap link may allow one); none: no buttons. */
  rights?: TapRights;
  /** Changes to this counter are waiting for the connection (the offline queue). */
  unsent?: boolean;
  /**
   * The maximum of this counter's section (group.sectionLimits), null for none, and
   * the section's live total: increments that would pass it are not offered. Numbers, not an
   * object, so the memoised card renders again only when they change.
   */
  sectionMax?: number | null;
  sectionTotal?: number;
}) {
  const { t } = useLingui();
  const [editingThumbnail, setEditingThumbnail] = useState(false);
  const [editingSettings, setEditingSettings] = useState(false);
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  const [showingHistory, setShowingHistory] = useState(false);
  const [failedThumbnail, setFailedThumbnail] = useState<string | null>(null);
  const { id, incrementStep, decrementStep } = counter;
  const thumbnailFailed = counter.thumbnailUrl !== null && failedThumbnail === counter.thumbnailUrl;

  const saveText = (field: 'name' | 'description') => (text: string) => {
    const next = sanitizeText(text);
    if (next !== counter[field]) store.updateCounter(id, { [field]: next });
  };
  const saveNumber =
    (field: 'value' | 'incrementStep' | 'decrementStep', min?: number) => (text: string) => {
      let next = parseIntegerInput(text, counter[field], min);
      // A typed value stays inside the counter's limits (the server refuses it outside).
      if (field === 'value') next = clampToLimits(next, counter);
      if (next !== counter[field]) store.updateCounter(id, { [field]: next });
    };
  const section = sectionMax === null ? null : { max: sectionMax, total: sectionTotal };
  /** This page taps (the access key, or a tap link): the −/+ buttons, focus mode. */
  const counts = rights.increment || rights.decrement;
  const decrementBlocked = blockedReason(counter, 'decrement');
  const incrementBlocked = blockedReason(counter, 'increment', section);
  const capacity = capacityOf(counter);
  const decrementNoteId = useId();
  const incrementNoteId = useId();
  /**
   * Sets the value to the limit's edge. Taps only move by whole steps and are counted on the
   * server; this is not a tap but a value edit, exactly as if the member typed the number, and
   * the button says so ("Set to 30"): if another member's tap lands in the same moment the value
   * is still the number the button showed, never that number plus or minus a hidden tap.
   */
  const setTo = (value: number) => {
    store.updateCounter(id, { value });
  };

  // Three rows of the grid (CounterGrid's subgrid): the name, the −/+ row, the rest. Every card of
  // a grid row shares the three heights, so the −/+ rows line up however long a name is or
  // whatever lines the rest holds.
  return (
    <article
      id={`counter-${id}`}
      aria-label={counter.name === '' ? t`Counter Name` : counter.name}
      data-capacity={capacity?.level}
      className={`${card} row-span-3 grid grid-rows-subgrid p-4 sm:p-5`}
    >
      <div className="flex min-w-0 flex-col gap-2">
        <div className="flex items-start gap-3">
          <Thumbnail
            readOnly={readOnly}
            url={counter.thumbnailUrl}
            failed={thumbnailFailed}
            onError={setFailedThumbnail}
            onEdit={() => {
              setEditingThumbnail(true);
            }}
          />
          <div className="min-w-0 flex-1">
            {(!readOnly || counter.name !== '') && (
              <h2 className="counter-name">
                <InlineEdit
                  value={counter.name}
                  label={t`Counter name`}
                  readOnly={readOnly}
                  placeholder={t`Counter Name`}
                  onCommit={saveText('name')}
                  multiline
                />
              </h2>
            )}
            {(!readOnly || counter.description !== '') && (
              <div className="counter-description">
                <InlineEdit
                  value={counter.description}
                  label={t`Description`}
                  readOnly={readOnly}
                  placeholder={t`Add a description...`}
                  onCommit={saveText('description')}
                  multiline
                />
              </div>
            )}
          </div>
          {counts && (
            <MenuButton
              label={t`Counter actions`}
              icon={<MoreVertical className="size-5" />}
              items={[
                ...(readOnly
                  ? []
                  : [
                      {
                        label: t`Goal and limits`,
                        icon: <Sliders className="size-4" />,
                        onSelect: () => {
                          setEditingSettings(true);
                        },
                      },
                    ]),
                {
                  label: t`Count with a note…`,
                  icon: <Plus className="size-4" />,
                  onSelect: () => {
                    window.dispatchEvent(new CustomEvent(NOTE_EVENT, { detail: id }));
                  },
                },
                {
                  label: t`Focus mode`,
                  icon: <Maximize className="size-4" />,
                  onSelect: () => {
                    window.dispatchEvent(new CustomEvent(FOCUS_EVENT, { detail: id }));
                  },
                },
                {
                  label: t`History`,
                  icon: <ChartLine className="size-4" />,
                  onSelect: () => {
                    setShowingHistory(true);
                  },
                },
                ...(readOnly
                  ? []
                  : [
                      {
                        label: t`Delete counter`,
                        icon: <Trash className="size-4" />,
                        danger: true,
                        onSelect: () => {
                          setConfirmingDelete(true);
                        },
                      },
                    ]),
              ]}
            />
          )}
        </div>
        {thumbnailFailed && !editingThumbnail && (
          <p role="status" className="text-xs text-red-700 dark:text-red-300">
            {counterImageFailed()}
          </p>
        )}
      </div>

      <div className="flex flex-col gap-4">
        <div className="flex items-center justify-between gap-2">
          {rights.decrement && (
            <AdjustButton
              label={t`Decrement by ${decrementStep}`}
              blocked={decrementBlocked !== null}
              noteId={decrementNoteId}
              onPress={() => {
                store.adjust(id, 'decrement');
              }}
              className="adjust-btn adjust-minus"
            >
              <Minus className="size-5" />
              <span>{counter.decrementStep}</span>
            </AdjustButton>
          )}
          <div className="relative flex min-w-0 flex-1 justify-center text-center">
            <InlineEdit
              value={String(counter.value)}
              label={t`Counter value`}
              readOnly={readOnly}
              inputMode="numeric"
              onCommit={saveNumber('value')}
              className={`font-bold tracking-tight tabular-nums ${valueSize(counter.value)}`}
              inputClassName="text-center text-2xl font-bold tabular-nums"
            />
            {unsent && (
              // In the gap under the number, so the card keeps its height while offline.
              <p
                className="unsent-note"
                title={t`Not sent yet: it goes out when the connection is back`}
              >
                <Clock className="size-3.5" />
                <span>{t`Not sent yet`}</span>
              </p>
            )}
          </div>
          {rights.increment && (
            <AdjustButton
              label={t`Increment by ${incrementStep}`}
              blocked={incrementBlocked !== null}
              noteId={incrementNoteId}
              onPress={() => {
                store.adjust(id, 'increment');
              }}
              className="adjust-btn adjust-plus"
            >
              <Plus className="size-5" />
              <span>{counter.incrementStep}</span>
            </AdjustButton>
          )}
        </div>
        {rights.decrement && decrementBlocked !== null && (
          <LimitNote
            id={decrementNoteId}
            reason={decrementBlocked}
            room={readOnly ? 0 : -partialRoom(counter, 'decrement')}
            value={counter.value}
            onSet={setTo}
          />
        )}
        {rights.increment && incrementBlocked !== null && (
          <LimitNote
            id={incrementNoteId}
            reason={incrementBlocked}
            room={readOnly ? 0 : partialRoom(counter, 'increment', section)}
            value={counter.value}
            onSet={setTo}
          />
        )}
      </div>

      <div className="flex min-w-0 flex-col gap-4">
        <PaceLine counter={counter} store={store} />

        <Suspense fallback={<div className="h-9" />}>
          <Sparkline
            counter={counter}
            store={store}
            open={showingHistory}
            setOpen={setShowingHistory}
          />
        </Suspense>

        <Purpose counter={counter} capacity={capacity} />

        {/* The steps are what a tap adds or takes away: a view-only page has no taps. */}
        {!readOnly && (
          <div className="steps-row mt-auto">
            <Step
              label={t`Decrement Step`}
              value={counter.decrementStep}
              onCommit={saveNumber('decrementStep', MIN_STEP)}
            />
            <Step
              label={t`Increment Step`}
              value={counter.incrementStep}
              onCommit={saveNumber('incrementStep', MIN_STEP)}
              alignEnd
            />
          </div>
        )}

        {editingThumbnail && (
          <Suspense fallback={null}>
            <ThumbnailDialog
              currentUrl={counter.thumbnailUrl}
              onSave={(thumbnailUrl) => {
                store.updateCounter(id, { thumbnailUrl });
              }}
              onClose={() => {
                setEditingThumbnail(false);
              }}
            />
          </Suspense>
        )}

        {editingSettings && (
          <Suspense fallback={null}>
            <CounterSettingsDialog
              counter={counter}
              counters={store.getState().counters ?? []}
              onSave={(patch) => {
                store.updateCounter(id, patch);
              }}
              onClose={() => {
                setEditingSettings(false);
              }}
            />
          </Suspense>
        )}

        {confirmingDelete && (
          <Suspense fallback={null}>
            <ConfirmDialog
              title={t`Delete counter`}
              message={t`Are you sure you want to delete this counter?`}
              confirmLabel={t`Delete`}
              onConfirm={() => {
                store.deleteCounter(id);
              }}
              onClose={() => {
                setConfirmingDelete(false);
              }}
            />
          </Suspense>
        )}
      </div>
    </article>
  );
});

/**
 * The increment or decrement button. At a limit it stays focusable (a keyboard user tapping Enter
 * keeps their place) but does nothing; the line under the buttons (LimitNote) says why, on screen
 * for a phone that has no hover, and is the button's description.
 */
function AdjustButton({
  label,
  blocked,
  noteId,
  onPress,
  className,
  children,
}: {
  label: string;
  /** The next step would pass a limit: the server would refuse it. */
  blocked: boolean;
  /** The id of the line that says why. */
  noteId: string;
  onPress: () => void;
  className: string;
  children: ReactNode;
}) {
  return (
    <button
      type="button"
      aria-label={label}
      aria-disabled={blocked}
      aria-describedby={blocked ? noteId : undefined}
      onClick={() => {
        if (!blocked) onPress();
      }}
      className={className}
    >
      {children}
    </button>
  );
}

/**
 * Why a button under it does nothing, in words, and, when a whole step would pass the limit but a
 * smaller move would not, a button that sets the value to the limit's edge ("Set to 30" at 29 of
 * 30 with a step of 5): labelled as the absolute value it writes, not as a tap.
 */
function LimitNote({
  id,
  reason,
  room,
  value,
  onSet,
}: {
  id: string;
  reason: string;
  /** The remainder: positive up to a maximum, negative down to a minimum, 0 for none. */
  room: number;
  /** The counter's value now: the button writes `value + room`. */
  value: number;
  onSet: (value: number) => void;
}) {
  const { t } = useLingui();
  const target = value + room;
  const shown = formatNumber(target);
  return (
    <div className="flex items-start gap-2 rounded-xl bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:bg-amber-950/50 dark:text-amber-100">
      <CircleAlert className="mt-0.5 size-4 shrink-0" />
      <p id={id} className="min-w-0 flex-1">
        {reason}
      </p>
      {room !== 0 && (
        <button
          type="button"
          aria-label={t`Set the value to ${shown}`}
          onClick={() => {
            onSet(target);
          }}
          className="chip-btn shrink-0"
        >
          {t`Set to ${shown}`}
        </button>
      )}
    </div>
  );
}

/**
 * Goal progress, capacity, minimum and period, each only when the counter has it (a counter
 * without any renders nothing here, the plain card). Every state is text and an icon, the
 * colour only repeats it.
 */
function Purpose({ counter, capacity }: { counter: Counter; capacity: Capacity | null }) {
  const { t } = useLingui();
  const goal = goalProgress(counter);
  const period = periodFigures(counter);
  const atMin = atMinimum(counter);
  const goalId = useId();
  const capacityId = useId();
  if (goal === null && capacity === null && period === null && !atMin) return null;
  return (
    <div className="purpose">
      {goal !== null && (
        <div>
          <div className="purpose-row">
            <span id={goalId} className="purpose-label">
              {t`Goal`}
            </span>
            {goal.reached && (
              <span className="state-badge state-goal">
                <Check className="size-3.5" />
                {t`Goal reached`}
              </span>
            )}
            <span className="ms-auto font-semibold whitespace-nowrap tabular-nums">
              {goal.label}
            </span>
          </div>
          <Bar
            labelledBy={goalId}
            fraction={goal.fraction}
            valueText={goal.valueText}
            tone={goal.reached ? 'bar-goal-reached' : 'bar-goal'}
          />
        </div>
      )}
      {capacity !== null && (
        <div>
          <div className="purpose-row">
            <span id={capacityId} className="purpose-label">
              {t`Capacity`}
            </span>
            <span className={`state-badge state-${capacity.level}`}>
              {capacity.level === 'full' ? (
                <Ban className="size-3.5" />
              ) : capacity.level === 'near' ? (
                <TriangleAlert className="size-3.5" />
              ) : (
                <Gauge className="size-3.5" />
              )}
              {capacity.label}
            </span>
            <span className="ms-auto font-semibold whitespace-nowrap tabular-nums">
              {numbersInOrder(`${formatNumber(counter.value)} / ${formatNumber(capacity.max)}`)}
            </span>
          </div>
          <Bar
            labelledBy={capacityId}
            fraction={capacity.fraction}
            valueText={capacity.label}
            tone={`bar-${capacity.level}`}
          />
        </div>
      )}
      {atMin && (
        <div className="purpose-row">
          <span className="state-badge state-min">
            <ArrowDownToLine className="size-3.5" />
            {t`At minimum`}
          </span>
        </div>
      )}
      {period !== null && (
        <div className="purpose-row flex-wrap">
          <span className="purpose-label inline-flex items-center gap-1">
            <RotateCcw className="size-3.5" />
            {period.label}
          </span>
          <dl className="period-figures">
            <div>
              <dt>{t`This period`}</dt>
              <dd>{period.thisPeriod}</dd>
            </div>
            <div>
              <dt>{t`All time`}</dt>
              <dd>{period.allTime}</dd>
            </div>
          </dl>
        </div>
      )}
    </div>
  );
}

function Bar({
  labelledBy,
  fraction,
  valueText,
  tone,
}: {
  labelledBy: string;
  fraction: number;
  valueText: string;
  tone: string;
}) {
  const percent = Math.round(fraction * 100);
  return (
    <div
      role="progressbar"
      aria-labelledby={labelledBy}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={percent}
      aria-valuetext={valueText}
      className="bar"
    >
      <div className={`bar-fill ${tone}`} style={{ width: `${percent}%` }} />
    </div>
  );
}

function Step({
  label,
  value,
  onCommit,
  alignEnd = false,
}: {
  label: string;
  value: number;
  onCommit: (text: string) => void;
  alignEnd?: boolean;
}) {
  return (
    <div className={`flex flex-col gap-0.5 ${alignEnd ? 'items-end text-end' : 'items-start'}`}>
      <span className="step-label">{label}</span>
      <InlineEdit
        value={String(value)}
        label={label}
        inputMode="numeric"
        onCommit={onCommit}
        compact
        className="font-semibold tabular-nums"
      />
    </div>
  );
}

function Thumbnail({
  url,
  failed,
  onError,
  onEdit,
  readOnly = false,
}: {
  url: string | null;
  failed: boolean;
  onError: (url: string) => void;
  onEdit: () => void;
  readOnly?: boolean;
}) {
  const { t } = useLingui();
  if (url === null && readOnly) return null;
  if (url === null) {
    return (
      <button
        type="button"
        aria-label={t`Add thumbnail`}
        title={t`Add thumbnail`}
        onClick={onEdit}
        className="thumb thumb-empty"
      >
        <ImagePlus className="size-5" />
      </button>
    );
  }
  const picture = (
    <>
      {failed ? (
        <ImageOff className="size-5 text-zinc-500 dark:text-zinc-400" />
      ) : (
        <img
          src={url}
          alt=""
          width={56}
          height={56}
          loading="lazy"
          referrerPolicy="no-referrer"
          onError={() => {
            onError(url);
          }}
          className="size-full object-cover"
        />
      )}
    </>
  );
  if (readOnly) return <div className="thumb thumb-filled">{picture}</div>;
  return (
    <button
      type="button"
      aria-label={t`Change thumbnail`}
      title={t`Change thumbnail`}
      onClick={onEdit}
      className="thumb thumb-filled"
    >
      {picture}
    </button>
  );
}

/**
 * Big numbers shrink so they always fit the card, down to 360 px wide screens, and never break
 * across lines (only a number too long for any size may).
 */
function valueSize(value: number): string {
  const length = String(value).length;
  if (length <= 5) return 'text-5xl leading-tight whitespace-nowrap wrap-normal';
  if (length <= 8) return 'text-4xl leading-tight whitespace-nowrap wrap-normal';
  if (length <= 11) return 'text-3xl leading-tight whitespace-nowrap wrap-normal';
  return 'text-xl leading-tight break-all';
}
