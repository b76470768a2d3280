import { Clock, ImageOff, ImagePlus, Minus, Plus, Trash } from './icons.js';
import { lazy, memo, Suspense, useState } from 'react';
import type { Counter } from '../../shared/api.js';
import { MIN_STEP } from '../../shared/limits.js';
import { MESSAGES } from '../../shared/messages.js';
import { parseIntegerInput, sanitizeText } from '../../shared/rules.js';
import type { GroupStore } from '../live/groupStore.js';
import { card, iconButton } from '../lib/ui.js';
import { InlineEdit } from './InlineEdit.js';

// Opened rarely: loaded on idle after the group screen shows (see prefetchCardEditors).
const loadConfirmDialog = () => import('./ConfirmDialog.js');
const loadImageUrlDialog = () => import('./ImageUrlDialog.js');
const ConfirmDialog = lazy(() => loadConfirmDialog().then((m) => ({ default: m.ConfirmDialog })));
const ThumbnailDialog = lazy(() =>
  loadImageUrlDialog().then((m) => ({ default: m.ThumbnailDialog })),
);

// Issue 7: sparklines and the undo toast (Group.tsx), one chunk loaded right after first paint.
export const loadExtras = () => import('./GroupExtras.js');
const Sparkline = lazy(() => loadExtras().then((m) => ({ default: m.Sparkline })));

export function prefetchCardEditors(): void {
  void loadConfirmDialog();
  void loadImageUrlDialog();
}

export const CounterCard = memo(function CounterCard({
  counter,
  store,
  readOnly = false,
  unsent = false,
}: {
  counter: Counter;
  store: GroupStore;
  /** View-only access: everything shown, nothing editable. */
  readOnly?: boolean;
  /** Changes to this counter are waiting for the connection (issue 8's offline queue). */
  unsent?: boolean;
}) {
  const [editingThumbnail, setEditingThumbnail] = useState(false);
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
      const next = parseIntegerInput(text, counter[field], min);
      if (next !== counter[field]) store.updateCounter(id, { [field]: next });
    };

  return (
    <article
      id={`counter-${id}`}
      aria-label={counter.name === '' ? 'Counter Name' : counter.name}
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

      <div className="mt-auto flex items-center justify-between gap-2">
        {!readOnly && (
          <button
            type="button"
            aria-label={`Decrement by ${counter.decrementStep}`}
            onClick={() => {
              store.adjust(id, 'decrement');
            }}
            className="adjust-btn adjust-minus"
          >
            <Minus className="size-5" />
            <span>{counter.decrementStep}</span>
          </button>
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
          <button
            type="button"
            aria-label={`Increment by ${counter.incrementStep}`}
            onClick={() => {
              store.adjust(id, 'increment');
            }}
            className="adjust-btn adjust-plus"
          >
            <Plus className="size-5" />
            <span>{counter.incrementStep}</span>
          </button>
        )}
      </div>

      <Suspense fallback={<div className="h-9" />}>
        <Sparkline counter={counter} store={store} />
      </Suspense>

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
