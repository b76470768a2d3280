/**
 * A section's heading on the group screen (docs/product.md#sections): its name and the live
 * subtotal of its counters ("Entrances — total 205"), or with a maximum its capacity ("205 / 250",
 * the room left, nearly full from 90 %, full at the maximum: in words and with an icon, never
 * colour alone). Members set or remove the maximum from here.
 */
import { useLingui } from '@lingui/react/macro';
import { lazy, Suspense, useState } from 'react';
import { capacityText, totalText, type SectionBlock } from '../lib/sections.js';
import { Ban, CircleAlert, Gauge } from './icons/index.js';

const loadSectionMaxDialog = () => import('./SectionMaxDialog.js');
const SectionMaxDialog = lazy(() =>
  loadSectionMaxDialog().then((m) => ({ default: m.SectionMaxDialog })),
);

/** The capacity badge's look per state (text and icon say the same as the colour). */
const BADGE = {
  open: 'bg-zinc-100 text-zinc-800 dark:bg-zinc-800 dark:text-zinc-200',
  near: 'bg-amber-100 text-amber-900 dark:bg-amber-950/60 dark:text-amber-200',
  full: 'bg-red-100 text-red-800 dark:bg-red-950/60 dark:text-red-200',
} as const;
const BAR = {
  open: 'bg-indigo-500 dark:bg-indigo-400',
  near: 'bg-amber-500 dark:bg-amber-400',
  full: 'bg-red-600 dark:bg-red-400',
} as const;

export function SectionHeader({
  block,
  headingId,
  readOnly,
  onSetMax,
}: {
  block: SectionBlock;
  headingId: string;
  readOnly: boolean;
  onSetMax: (max: number | null) => void;
}) {
  const [editing, setEditing] = useState(false);
  const { t } = useLingui();
  const section = block.name;
  const capacity = block.capacity === 'none' ? null : block.capacity;
  const words = capacityText(block);
  const filled =
    block.max === null || block.max === 0 ? 100 : Math.min(100, (block.total / block.max) * 100);
  return (
    <div className="mb-3">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
        <h2 id={headingId} className="min-w-0 text-lg font-semibold tracking-tight break-words">
          {block.name}
        </h2>
        <p
          className="text-sm font-semibold text-zinc-700 tabular-nums dark:text-zinc-300"
          data-testid="section-total"
        >
          {block.max === null && <span aria-hidden="true">— </span>}
          {totalText(block)}
        </p>
        {capacity && words && (
          <p
            className={`inline-flex items-center gap-1 rounded-full px-2.5 py-0.5 text-xs font-semibold ${BADGE[capacity]}`}
            data-testid="section-capacity"
          >
            {capacity === 'full' ? (
              <Ban className="size-3.5" />
            ) : capacity === 'near' ? (
              <CircleAlert className="size-3.5" />
            ) : (
              <Gauge className="size-3.5" />
            )}
            {words}
          </p>
        )}
        {!readOnly && (
          <button
            type="button"
            aria-haspopup="dialog"
            onClick={() => {
              setEditing(true);
            }}
            className="chip-btn sm:ml-auto"
          >
            {block.max === null ? t`Set max` : t`Edit max`}
            <span className="sr-only"> {t`for ${section}`}</span>
          </button>
        )}
      </div>
      {capacity && (
        <div
          aria-hidden="true"
          className="mt-2 h-1.5 w-full overflow-hidden rounded-full bg-zinc-200 dark:bg-zinc-800"
        >
          <div className={`h-full rounded-full ${BAR[capacity]}`} style={{ width: `${filled}%` }} />
        </div>
      )}
      {editing && (
        <Suspense fallback={null}>
          <SectionMaxDialog
            section={block.name}
            max={block.max}
            total={block.total}
            onSave={onSetMax}
            onClose={() => {
              setEditing(false);
            }}
          />
        </Suspense>
      )}
    </div>
  );
}
