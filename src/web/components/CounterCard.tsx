import { Check, Clock, icon, ImageOff, ImagePlus, Minus, Plus, Sliders, Trash } from './icons.js';
import { lazy, memo, Suspense, useId, useState, type ReactNode } from 'react';
import type { Counter } from '../../shared/api.js';
import { MIN_STEP } from '../../shared/limits.js';
import { MESSAGES } from '../../shared/messages.js';
import { parseIntegerInput, sanitizeText } from '../../shared/rules.js';
import type { GroupStore } from '../live/groupStore.js';
import {
  atMinimum,
  blockedReason,
  capacityOf,
  type Capacity,
  clampToLimits,
  goalProgress,
  periodFigures,
} from '../lib/capacity.js';
import { card, iconButton } from '../lib/ui.js';
import { InlineEdit } from './InlineEdit.js';
import { PaceLine } from './PaceLine.js';

// Opened rarely: loaded on idle after the group screen shows (see prefetchCardEditors).
const loadConfirmDialog = () => import('./ConfirmDialog.js');
const loadImageUrlDialog = () => import('./ImageUrlDialog.js');
const ConfirmDialog = lazy(() => loadConfirmDialog().then((m) => ({ default: m.ConfirmDialog })));
const ThumbnailDialog = lazy(() =>
  loadImageUrlDialog().then((m) => ({ default: m.ThumbnailDialog })),
);
// Issue 17: goal, limits, period and section.
const loadSettingsDialog = () => import('./CounterSettingsDialog.js');
const CounterSettingsDialog = lazy(() =>
  loadSettingsDialog().then((m) => ({ default: m.CounterSettingsDialog })),
);

// Issue 17's card icons (this card is their only user).
const Gauge = icon('M12 14l4-4M3.3 19a10 10 0 1 1 17.4 0');
const TriangleAlert = icon(
  'M10.3 3.9 1.8 18a2 2 0 0 0 1.7 3h17a2 2 0 0 0 1.7-3L13.7 3.9a2 2 0 0 0-3.4 0M12 9v4m0 4h.01',
);
const Ban = icon('M2 12a10 10 0 1 0 20 0a10 10 0 1 0-20 0M4.9 4.9l14.2 14.2');
const ArrowDownToLine = icon('M12 3v12m-5-5 5 5 5-5M5 21h14');
const Maximize = icon('M4 9V4h5M20 9V4h-5M4 15v5h5M20 15v5h-5');
const RotateCcw = icon('M3 12a9 9 0 1 0 3-6.7L3 8m0-5v5h5');

// Issue 7: sparklines and the undo toast (Group.tsx), one chunk loaded right after first paint.
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
  unsent = false,
  sectionMax = null,
  sectionTotal = 0,
}: {
  counter: Counter;
  store: GroupStore;
  /** View-only access: everything shown, nothing editable. */
  readOnly?: boolean;
  /** Changes to this counter are waiting for the connection (issue 8's offline queue). */
  unsent?: boolean;
  /**
   * Issue 17: the maximum of this counter's section (group.sectionLimits), null for none, and
   * the section's live total: increments that would pass it are not offered. Numbers, not an
   * object, so the memoised card renders again only when they change.
   */
  sectionMax?: number | null;
  sectionTotal?: number;
}) {
  const [editingThumbnail, setEditingThumbnail] = useState(false);
  const [editingSettings, setEditingSettings] = useState(false);
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  const [failedThumbnail, setFailedThumbnail] = useState<string | null>(null);
  const { id } = counter;
  const thumbnailFailed = counter.thumbnailUrl !== null && failedThumbnail === counter.thumbnailUrl;

  const saveText = (field: 'name' | 'description') => (text: string) => {
    const next = sanitizeText(text);
    if (next !== counter[field]) store.updateCounter(id, { [field]: next });
  };
  const saveNumber =
    (field: 'value' | 'incrementStep' | 'decrementStep', min?: number) => (text: string) => {
      let next = parseIntegerInput(text, counter[field], min);
      // Issue 17: a typed value stays inside the counter's limits (the server refuses it outside).
      if (field === 'value') next = clampToLimits(next, counter);
      if (next !== counter[field]) store.updateCounter(id, { [field]: next });
    };
  const decrementBlocked = blockedReason(counter, 'decrement');
  const incrementBlocked = blockedReason(
    counter,
    'increment',
    sectionMax === null ? null : { max: sectionMax, total: sectionTotal },
  );
  const capacity = capacityOf(counter);

  return (
    <article
      id={`counter-${id}`}
      aria-label={counter.name === '' ? 'Counter Name' : counter.name}
      data-capacity={capacity?.level}
      className={`${card} flex h-full flex-col gap-4 p-4 sm:p-5`}
    >
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
          <h2 className="counter-name">
            <InlineEdit
              value={counter.name}
              label="Counter name"
              readOnly={readOnly}
              placeholder="Counter Name"
              onCommit={saveText('name')}
            />
          </h2>
          <div className="counter-description">
            <InlineEdit
              value={counter.description}
              label="Description"
              readOnly={readOnly}
              placeholder="Add a description..."
              onCommit={saveText('description')}
            />
          </div>
        </div>
        {!readOnly && (
          <button
            type="button"
            aria-label="Goal and limits"
            title="Goal, limits, reset and section"
            aria-haspopup="dialog"
            onClick={() => {
              setEditingSettings(true);
            }}
            className={`${iconButton} -mt-1 -mr-1`}
          >
            <Sliders className="size-[18px]" />
          </button>
        )}
        {!readOnly && (
          <button
            type="button"
            aria-label="Focus mode"
            title="Focus mode: count full screen (f)"
            aria-haspopup="dialog"
            onClick={() => {
              window.dispatchEvent(new CustomEvent('tally:focus-mode', { detail: id }));
            }}
            className={`${iconButton} -mt-1 -mr-1`}
          >
            <Maximize className="size-[18px]" />
          </button>
        )}
        {!readOnly && (
          <button
            type="button"
            aria-label="Delete counter"
            title="Delete counter"
            onClick={() => {
              setConfirmingDelete(true);
            }}
            className={`${iconButton} -mt-1 -mr-1 hover:text-red-600 dark:hover:text-red-400`}
          >
            <Trash className="size-[18px]" />
          </button>
        )}
      </div>

      {thumbnailFailed && !editingThumbnail && (
        <p role="status" className="-mt-1 text-xs text-red-700 dark:text-red-300">
          {MESSAGES.counterImageFailed}
        </p>
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

      <div className="mt-auto flex items-center justify-between gap-2">
        {!readOnly && (
          <AdjustButton
            label={`Decrement by ${counter.decrementStep}`}
            blocked={decrementBlocked}
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
            label="Counter value"
            readOnly={readOnly}
            inputMode="numeric"
            onCommit={saveNumber('value')}
            className={`font-bold tracking-tight tabular-nums ${valueSize(counter.value)}`}
            inputClassName="text-center text-2xl font-bold tabular-nums"
          />
          {unsent && (
            // In the gap under the number, so the card keeps its height while offline.
            <p className="unsent-note" title={MESSAGES.notSentYet}>
              <Clock className="size-3.5" />
              <span>Not sent yet</span>
            </p>
          )}
        </div>
        {!readOnly && (
          <AdjustButton
            label={`Increment by ${counter.incrementStep}`}
            blocked={incrementBlocked}
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

      <PaceLine counter={counter} store={store} />

      <Suspense fallback={<div className="h-9" />}>
        <Sparkline counter={counter} store={store} />
      </Suspense>

      <Purpose counter={counter} capacity={capacity} />

      <div className="steps-row">
        <Step
          label="Decrement Step"
          value={counter.decrementStep}
          onCommit={saveNumber('decrementStep', MIN_STEP)}
          readOnly={readOnly}
        />
        <Step
          label="Increment Step"
          value={counter.incrementStep}
          onCommit={saveNumber('incrementStep', MIN_STEP)}
          readOnly={readOnly}
          alignEnd
        />
      </div>

      {confirmingDelete && (
        <Suspense fallback={null}>
          <ConfirmDialog
            title="Delete counter"
            message={MESSAGES.deleteConfirm}
            confirmLabel="Delete"
            onConfirm={() => {
              store.deleteCounter(id);
            }}
            onClose={() => {
              setConfirmingDelete(false);
            }}
          />
        </Suspense>
      )}
    </article>
  );
});

/**
 * The increment or decrement button. At a limit it stays focusable (a keyboard user tapping Enter
 * keeps their place) but does nothing, and says why: aria-disabled plus a description.
 */
function AdjustButton({
  label,
  blocked,
  onPress,
  className,
  children,
}: {
  label: string;
  /** Why it cannot be used now (the next step would pass a limit), or null. */
  blocked: string | null;
  onPress: () => void;
  className: string;
  children: ReactNode;
}) {
  const reasonId = useId();
  return (
    <button
      type="button"
      aria-label={label}
      aria-disabled={blocked !== null}
      aria-describedby={blocked === null ? undefined : reasonId}
      title={blocked ?? undefined}
      onClick={() => {
        if (blocked === null) onPress();
      }}
      className={className}
    >
      {children}
      {blocked !== null && (
        <span id={reasonId} className="sr-only">
          {blocked}
        </span>
      )}
    </button>
  );
}

/**
 * Issue 17: goal progress, capacity, minimum and period, each only when the counter has it (a
 * counter without any renders nothing here: SPEC's card). Every state is text and an icon, the
 * colour only repeats it.
 */
function Purpose({ counter, capacity }: { counter: Counter; capacity: Capacity | null }) {
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
              Goal
            </span>
            {goal.reached && (
              <span className="state-badge state-goal">
                <Check className="size-3.5" />
                Goal reached
              </span>
            )}
            <span className="ml-auto font-semibold tabular-nums">{goal.label}</span>
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
              Capacity
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
            <span className="ml-auto font-semibold tabular-nums">
              {counter.value.toLocaleString('en-US')} / {capacity.max.toLocaleString('en-US')}
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
            At minimum
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
              <dt>This period</dt>
              <dd>{period.thisPeriod}</dd>
            </div>
            <div>
              <dt>All time</dt>
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
  readOnly = false,
}: {
  label: string;
  value: number;
  onCommit: (text: string) => void;
  alignEnd?: boolean;
  readOnly?: boolean;
}) {
  return (
    <div className={`flex flex-col gap-0.5 ${alignEnd ? 'items-end text-right' : 'items-start'}`}>
      <span className="step-label">{label}</span>
      <InlineEdit
        value={String(value)}
        label={label}
        inputMode="numeric"
        onCommit={onCommit}
        readOnly={readOnly}
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
  if (url === null && readOnly) return null;
  if (url === null) {
    return (
      <button
        type="button"
        aria-label="Add thumbnail"
        title="Add thumbnail"
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
      aria-label="Change thumbnail"
      title="Change thumbnail"
      onClick={onEdit}
      className="thumb thumb-filled"
    >
      {picture}
    </button>
  );
}

/** Big numbers shrink so they always fit the card, down to 360 px wide screens. */
function valueSize(value: number): string {
  const length = String(value).length;
  if (length <= 5) return 'text-5xl leading-tight';
  if (length <= 8) return 'text-4xl leading-tight';
  if (length <= 11) return 'text-3xl leading-tight';
  return 'text-xl leading-tight break-all';
}
