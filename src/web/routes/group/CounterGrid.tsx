/** The group screen's counters: loading, failed to load, none yet, or the grid of cards. */
import { MESSAGES } from '../../../shared/messages.js';
import { CounterCard } from '../../components/CounterCard.js';
import { Plus } from '../../components/icons.js';
import { mutedText, primaryButton, secondaryButton } from '../../lib/ui.js';
import type { GroupStore, GroupViewState } from '../../live/groupStore.js';
import { Pending } from './Page.js';

export function CounterGrid({
  store,
  state,
  readOnly,
  showPending,
  onAddCounter,
}: {
  store: GroupStore;
  state: GroupViewState;
  readOnly: boolean;
  /** Waiting changes are announced: cards with some say so. */
  showPending: boolean;
  onAddCounter: () => void;
}) {
  const { counters } = state;
  if (counters === null) {
    return state.countersFailed ? (
      <LoadFailed
        onRetry={() => {
          store.reloadCounters();
        }}
      />
    ) : (
      // As tall as the screen: the footer waits below the fold instead of jumping down when
      // the grid arrives (a layout shift Lighthouse counted on phones, BENCHMARKS.md).
      <Pending tall>{MESSAGES.loadingCounters}</Pending>
    );
  }
  if (counters.length === 0) return <EmptyState onCreate={readOnly ? null : onAddCounter} />;
  return (
    <ul aria-label="Counters" className="grid grid-cols-1 gap-4 pb-6 md:grid-cols-2 lg:grid-cols-3">
      {counters.map((counter) => (
        <li key={counter.id} className="min-w-0">
          <CounterCard
            counter={counter}
            store={store}
            readOnly={readOnly}
            unsent={showPending && state.pendingCounters.has(counter.id)}
          />
        </li>
      ))}
    </ul>
  );
}

/** The list did not load (the banner above says why) and nothing has filled it since. */
function LoadFailed({ onRetry }: { onRetry: () => void }) {
  return (
    <div className="empty-state">
      <p className={mutedText}>The counters could not be loaded.</p>
      <button type="button" onClick={onRetry} className={`${secondaryButton} mt-4`}>
        Try again
      </button>
    </div>
  );
}

function EmptyState({ onCreate }: { onCreate: (() => void) | null }) {
  return (
    <div className="empty-state">
      <div className="badge-icon badge-icon-indigo">
        <Plus className="size-6" />
      </div>
      <h2 className="mt-4 text-lg font-semibold">{MESSAGES.noCountersTitle}</h2>
      <p className={`mt-1 ${mutedText}`}>{MESSAGES.noCountersBody}</p>
      {onCreate && (
        <button type="button" onClick={onCreate} className={`${primaryButton} mt-6`}>
          <Plus className="size-4" />
          Create First Counter
        </button>
      )}
    </div>
  );
}
