/**
 * The group screen's counters: loading, failed to load, none yet, or the grid of cards, in the
 * group's order, with sections as headed blocks; reorder mode instead of the grid while a member
 * rearranges them; and the goals reached live, announced.
 */
import { useLingui } from '@lingui/react/macro';
import { lazy, Suspense, useEffect, useId, useState } from 'react';
import type { Counter } from '../../../shared/api.js';
import { CounterCard } from '../../components/CounterCard.js';
import { ArrowsUpDown, Check, Plus } from '../../components/icons/index.js';
import { SectionHeader } from '../../components/SectionHeader.js';
import { hasSections, layoutBlocks, type SectionBlock } from '../../lib/sections.js';
import type { TapRights } from '../../lib/tap-links.js';
import { mutedText, primaryButton, secondaryButton } from '../../lib/ui.js';
import type { GroupStore, GroupViewState } from '../../live/groupStore.js';
import { GoalNotices } from './GoalNotices.js';
import { Pending } from './Page.js';

// Reorder mode's drag and drop (@dnd-kit): loaded when a member opens it, or points at its button.
const loadReorderList = () => import('./ReorderList.js');
const ReorderList = lazy(() => loadReorderList().then((m) => ({ default: m.ReorderList })));

const GRID = 'grid grid-cols-1 gap-4 md:grid-cols-2 lg:grid-cols-3';
/**
 * Each card takes three rows of its list's grid (name, −/+ row, the rest) and lays its parts on
 * them (a subgrid), so the −/+ rows of one grid row share a height whatever the cards hold.
 */
const CARD_CELL_CLASS = 'row-span-3 grid min-w-0 grid-rows-subgrid';

interface GridProps {
  store: GroupStore;
  state: GroupViewState;
  /** Nothing but taps (a view-only or tap link): no editing, no reordering. */
  readOnly: boolean;
  /** The directions this page may count in. */
  rights: TapRights;
  /** Waiting changes are announced: cards with some say so. */
  showPending: boolean;
  onAddCounter: () => void;
}

export function CounterGrid({
  store,
  state,
  readOnly,
  rights,
  showPending,
  onAddCounter,
}: GridProps) {
  const { t } = useLingui();
  const { counters } = state;
  const [reordering, setReordering] = useState(false);
  const canReorder = !readOnly && counters !== null && counters.length > 1;
  // View-only now (the key changed), or too few counters left: reorder mode has nothing to do.
  useEffect(() => {
    if (!canReorder) setReordering(false);
  }, [canReorder]);

  return (
    <>
      <GoalNotices
        notices={state.goalNotices}
        onDismiss={(id) => {
          store.dismissGoalNotice(id);
        }}
      />
      {canReorder && (
        <div className="mb-3 flex items-center justify-end gap-2">
          <button
            type="button"
            onPointerEnter={() => {
              void loadReorderList();
            }}
            onFocus={() => {
              void loadReorderList();
            }}
            onClick={() => {
              setReordering((on) => !on);
            }}
            className={reordering ? primaryButton : secondaryButton}
          >
            {reordering ? <Check className="size-4" /> : <ArrowsUpDown className="size-4" />}
            {reordering ? t`Done reordering` : t`Reorder`}
          </button>
        </div>
      )}
      {reordering && canReorder ? (
        <Suspense fallback={<Pending>{t`Loading...`}</Pending>}>
          <ReorderList store={store} counters={counters} />
        </Suspense>
      ) : (
        <Counters
          store={store}
          state={state}
          readOnly={readOnly}
          rights={rights}
          showPending={showPending}
          onAddCounter={onAddCounter}
        />
      )}
    </>
  );
}

function Counters({ store, state, readOnly, rights, showPending, onAddCounter }: GridProps) {
  const { t } = useLingui();
  const { counters } = state;
  const idPrefix = useId();
  if (counters === null) {
    return state.countersFailed ? (
      <LoadFailed
        onRetry={() => {
          store.reloadCounters();
        }}
      />
    ) : (
      // As tall as the screen: the footer waits below the fold instead of jumping down when
      // the grid arrives (a layout shift Lighthouse counted on phones, ADR 6).
      <Pending tall>{t`Loading counters...`}</Pending>
    );
  }
  if (counters.length === 0) {
    return <EmptyState onCreate={readOnly ? null : onAddCounter} tap={state.access === 'tap'} />;
  }
  /** The cards of a run or a section; a section's cards block taps past its maximum too. */
  const cards = (list: readonly Counter[], section?: SectionBlock) =>
    list.map((counter) => (
      <li key={counter.id} className={CARD_CELL_CLASS}>
        <CounterCard
          counter={counter}
          store={store}
          readOnly={readOnly}
          rights={rights}
          unsent={showPending && state.pendingCounters.has(counter.id)}
          sectionMax={section?.max ?? null}
          sectionTotal={section?.total ?? 0}
        />
      </li>
    ));
  if (!hasSections(counters)) {
    return (
      <ul aria-label={t`Counters`} className={`${GRID} pb-6`}>
        {cards(counters)}
      </ul>
    );
  }
  // Sections: each block where its first counter is; the others stay in place.
  return (
    <div className="flex flex-col gap-8 pb-6">
      {layoutBlocks(counters, state.group.sectionLimits).map((block, index) => {
        const headingId = `${idPrefix}-section-${index}`;
        if (block.kind === 'run') {
          const key = `run-${block.counters[0]?.id ?? index}`;
          if (!block.headed) {
            return (
              <ul key={key} aria-label={t`Counters`} className={GRID}>
                {cards(block.counters)}
              </ul>
            );
          }
          return (
            <section key={key} aria-labelledby={headingId}>
              <h2
                id={headingId}
                className="mb-3 text-lg font-semibold tracking-tight text-zinc-700 dark:text-zinc-300"
              >
                {t`Counters without a section`}
              </h2>
              <ul aria-label={t`Counters without a section`} className={GRID}>
                {cards(block.counters)}
              </ul>
            </section>
          );
        }
        const section = block.name;
        return (
          <section
            key={`section-${block.name}`}
            aria-labelledby={headingId}
            data-section={block.name}
          >
            <SectionHeader
              block={block}
              headingId={headingId}
              readOnly={readOnly}
              onSetMax={(max) => {
                store.updateSection(block.name, max);
              }}
            />
            <ul aria-label={t`Counters in ${section}`} className={GRID}>
              {cards(block.counters, block)}
            </ul>
          </section>
        );
      })}
    </div>
  );
}

/** The list did not load (the banner above says why) and nothing has filled it since. */
function LoadFailed({ onRetry }: { onRetry: () => void }) {
  const { t } = useLingui();
  return (
    <div className="empty-state">
      <p className={mutedText}>{t`The counters could not be loaded.`}</p>
      <button type="button" onClick={onRetry} className={`${secondaryButton} mt-4`}>
        {t`Try again`}
      </button>
    </div>
  );
}

function EmptyState({ onCreate, tap }: { onCreate: (() => void) | null; tap: boolean }) {
  const { t } = useLingui();
  return (
    <div className="empty-state">
      <div className="badge-icon badge-icon-indigo">
        <Plus className="size-6" />
      </div>
      <h2 className="mt-4 text-lg font-semibold">{t`No counters yet`}</h2>
      <p className={`mt-1 ${mutedText}`}>
        {tap
          ? t`The counters this tap link may count show up here as soon as the group has them.`
          : t`Create your first counter to get started!`}
      </p>
      {onCreate && (
        <button type="button" onClick={onCreate} className={`${primaryButton} mt-6`}>
          <Plus className="size-4" />
          {t`Create First Counter`}
        </button>
      )}
    </div>
  );
}
