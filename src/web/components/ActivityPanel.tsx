/**
 * The activity panel: who did what, newest first, live, one page of 50 at a time (a
 * group that has run for a year still opens with one small answer), older pages on scroll or
 * "Load older", Undo on every entry that can still be taken back, and the exports. A side panel
 * on wide screens, full width on phones; not modal, so the counters stay usable beside it.
 *
 * A second tab, "By member" (./MembersPanel.tsx, its own chunk): who counted how much.
 * A tab here rather than one more header button: the header's row is full on a 360 px phone.
 */
import {
  lazy,
  Suspense,
  useEffect,
  useId,
  useMemo,
  useRef,
  useState,
  type KeyboardEvent,
  type ReactNode,
} from 'react';
import type { ActivityEntry } from '../../shared/activity.js';
import type { AccessLevel } from '../../shared/api.js';
import {
  ACTIVITY_CATCH_UP,
  downloadExport,
  editEntryNote,
  entryMatches,
  fetchActivity,
  mayEditNote,
  type ExportKind,
} from '../lib/activity.js';
import { ApiRequestError, member } from '../lib/api.js';
import { NOTE_MAX_LENGTH } from '../../shared/limits.js';
import { t } from '@lingui/core/macro';
import { useLingui } from '@lingui/react/macro';
import { actorOf, describeEntry, relativeTime, undoErrorMessage } from '../lib/describe.js';
import type { GroupStore } from '../live/groupStore.js';
import {
  ArrowDownToLine,
  ArrowsUpDown,
  Flag,
  Loader,
  Minus,
  Pencil,
  Plus,
  RotateCcw,
  Trash,
  Undo,
  X,
} from './icons/index.js';
import { ErrorBanner } from './ErrorBanner.js';
import { dateLocale } from '../i18n/format.js';

const loadMembersPanel = () => import('./MembersPanel.js');
const MembersPanel = lazy(() => loadMembersPanel().then((m) => ({ default: m.MembersPanel })));

type Tab = 'log' | 'members';
const TABS: readonly Tab[] = ['log', 'members'];

/** Live changes are fetched this long after the first one of a burst, ms. */
export const CATCH_UP_DELAY_MS = 250;
/** Relative times ("2 min ago") are refreshed this often, ms. */
const CLOCK_MS = 20_000;

const EXPORTS: readonly ExportKind[] = ['counters', 'activity', 'periods', 'json'];

/** An export's button and notice: what the file holds, and its format. */
function exportLabel(kind: ExportKind): string {
  switch (kind) {
    case 'counters':
      return t`Counters (CSV)`;
    case 'activity':
      return t`Activity log (CSV)`;
    case 'periods':
      return t`Periods (CSV)`;
    case 'json':
      return t`Everything (JSON)`;
  }
}

/** Newer entries merged in front of the ones held, each id once, undo marks applied. */
export function mergeEntries(
  held: readonly ActivityEntry[],
  incoming: readonly ActivityEntry[],
  where: 'newer' | 'older',
): ActivityEntry[] {
  const seen = new Set(held.map((entry) => entry.id));
  const fresh = incoming.filter((entry) => !seen.has(entry.id));
  const all = where === 'newer' ? [...fresh, ...held] : [...held, ...fresh];
  const undoneBy = new Map<number, number>();
  for (const entry of all) if (entry.undoOf !== null) undoneBy.set(entry.undoOf, entry.id);
  return all.map((entry) => {
    const by = undoneBy.get(entry.id);
    return by !== undefined && entry.undoneBy === null ? { ...entry, undoneBy: by } : entry;
  });
}

function errorText(error: unknown, fallback: string): string {
  return error instanceof ApiRequestError && error.serverMessage ? error.serverMessage : fallback;
}

export function ActivityPanel({
  store,
  onClose,
  access = 'full',
}: {
  store: GroupStore;
  onClose: () => void;
  /**
   * View-only and tap links: no Undo buttons (a tap link undoes its own taps with the toast or
   * Ctrl+Z); a tap link has no exports either.
   */
  access?: AccessLevel;
}) {
  const readOnly = access !== 'full';
  const titleId = useId();
  const [entries, setEntries] = useState<ActivityEntry[]>([]);
  /** The `before` of the next older page; null at the beginning; undefined until loaded. */
  const [next, setNext] = useState<number | null | undefined>(undefined);
  const [loadingOlder, setLoadingOlder] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [undoing, setUndoing] = useState<ReadonlySet<number>>(new Set());
  const [now, setNow] = useState(Date.now);
  const [tab, setTab] = useState<Tab>('log');
  const [search, setSearch] = useState('');
  const { t } = useLingui();
  const tabsId = useId();
  const tabButtons = useRef<Partial<Record<Tab, HTMLButtonElement | null>>>({});
  const held = useRef(entries);
  held.current = entries;
  const heading = useRef<HTMLHeadingElement>(null);
  const scroller = useRef<HTMLDivElement>(null);
  const sentinel = useRef<HTMLDivElement>(null);
  const catchUp = useRef<() => void>(() => undefined);

  // First page, then every change that reaches this tab (the live channel, own answers) asks
  // for what is newer than the newest entry held: one request per burst, one at a time.
  useEffect(() => {
    let disposed = false;
    let loaded = false;
    let running = false;
    /** Changes arrived while a request ran: ask again after it. */
    let again = false;
    let timer: ReturnType<typeof setTimeout> | undefined;

    const loadNewest = async () => {
      const page = await fetchActivity(store, {});
      if (disposed) return;
      setEntries(mergeEntries([], page.entries, 'newer'));
      setNext(page.next);
    };

    const run = async () => {
      running = true;
      try {
        if (!loaded) {
          await loadNewest();
          loaded = true;
        } else {
          const newest = held.current[0]?.id ?? 0;
          const page = await fetchActivity(store, { after: newest }, { limit: ACTIVITY_CATCH_UP });
          if (disposed) return;
          // More than one request's worth happened (a long disconnect): start from the top
          // rather than show a gap in the middle of the log.
          if (page.entries.length >= ACTIVITY_CATCH_UP) await loadNewest();
          else if (page.entries.length > 0) {
            setEntries((current) => mergeEntries(current, page.entries, 'newer'));
          }
        }
        if (!disposed) setError(null);
      } catch (reason) {
        if (!disposed) setError(errorText(reason, t`The activity could not be loaded.`));
      } finally {
        running = false;
        if (again) {
          again = false;
          schedule();
        }
      }
    };

    const schedule = () => {
      if (disposed) return;
      if (running) {
        again = true;
        return;
      }
      if (timer !== undefined) return;
      timer = setTimeout(() => {
        timer = undefined;
        void run();
      }, CATCH_UP_DELAY_MS);
    };
    catchUp.current = schedule;

    void run();
    const unsubscribe = store.subscribe(schedule);
    return () => {
      disposed = true;
      clearTimeout(timer);
      unsubscribe();
    };
  }, [store]);

  const loadOlder = () => {
    if (next === null || next === undefined || loadingOlder) return;
    setLoadingOlder(true);
    fetchActivity(store, { before: next }).then(
      (page) => {
        setEntries((current) => mergeEntries(current, page.entries, 'older'));
        setNext(page.next);
        setLoadingOlder(false);
      },
      (reason: unknown) => {
        setError(errorText(reason, t`Older activity could not be loaded.`));
        setLoadingOlder(false);
      },
    );
  };
  const loadOlderRef = useRef(loadOlder);
  loadOlderRef.current = loadOlder;

  // Infinite scroll: the next page loads when the end of the list comes into view.
  useEffect(() => {
    const target = sentinel.current;
    if (!target || next === null || next === undefined) return;
    const observer = new IntersectionObserver(
      (seen) => {
        if (seen.some((entry) => entry.isIntersecting)) loadOlderRef.current();
      },
      { root: scroller.current, rootMargin: '200px' },
    );
    observer.observe(target);
    return () => {
      observer.disconnect();
    };
  }, [next, entries.length]);

  useEffect(() => {
    const timer = setInterval(() => {
      setNow(Date.now());
    }, CLOCK_MS);
    return () => {
      clearInterval(timer);
    };
  }, []);

  // Focus moves into the panel, and back to what opened it (the Activity button) on closing.
  useEffect(() => {
    const opener = document.activeElement;
    heading.current?.focus();
    return () => {
      if (opener instanceof HTMLElement && opener.isConnected) opener.focus();
    };
  }, []);

  // The By member chunk is small: fetched as the panel opens, so the tab shows at once.
  useEffect(() => {
    void loadMembersPanel();
  }, []);

  const byId = useMemo(() => new Map(entries.map((entry) => [entry.id, entry])), [entries]);

  /** WAI-ARIA tabs: arrows (and Home/End) move to the other tab and show it. */
  const onTabKey = (event: KeyboardEvent<HTMLButtonElement>) => {
    const index = TABS.indexOf(tab);
    let to: number | null = null;
    if (event.key === 'ArrowRight') to = (index + 1) % TABS.length;
    else if (event.key === 'ArrowLeft') to = (index - 1 + TABS.length) % TABS.length;
    else if (event.key === 'Home') to = 0;
    else if (event.key === 'End') to = TABS.length - 1;
    const target = to === null ? undefined : TABS[to];
    if (!target) return;
    event.preventDefault();
    setTab(target);
    tabButtons.current[target]?.focus();
  };

  const undo = (entry: ActivityEntry) => {
    setUndoing((current) => new Set(current).add(entry.id));
    setError(null);
    store
      .undoEntry(entry.id)
      .catch((reason: unknown) => {
        setError(undoErrorMessage(reason));
      })
      .finally(() => {
        setUndoing((current) => {
          const left = new Set(current);
          left.delete(entry.id);
          return left;
        });
        // Show the undo entry (or who undid it first) without waiting for the live channel.
        catchUp.current();
      });
  };

  const download = (kind: ExportKind, label: string) => {
    setError(null);
    setNotice(t`Preparing ${label}…`);
    downloadExport(store, kind).then(
      (name) => {
        setNotice(t`Downloaded ${name}`);
      },
      (reason: unknown) => {
        setNotice(null);
        setError(errorText(reason, t`The export failed.`));
      },
    );
  };

  return (
    <section
      role="dialog"
      aria-modal="false"
      aria-labelledby={titleId}
      onKeyDown={(event) => {
        if (event.key === 'Escape') {
          event.stopPropagation();
          onClose();
        }
      }}
      className="activity-panel"
    >
      <div className="flex items-center gap-2 border-b border-zinc-200 px-4 py-3 dark:border-zinc-800">
        <h2 ref={heading} id={titleId} tabIndex={-1} className="flex-1 text-lg font-semibold">
          {t`Activity`}
        </h2>
        <button
          type="button"
          aria-label={t`Close activity`}
          title={t`Close`}
          onClick={onClose}
          className="icon-btn -me-2"
        >
          <X className="size-5" />
        </button>
      </div>

      <div
        role="tablist"
        aria-label={t`Activity views`}
        className="flex gap-1 border-b border-zinc-200 px-4 dark:border-zinc-800"
      >
        {TABS.map((which) => (
          <button
            key={which}
            ref={(element) => {
              tabButtons.current[which] = element;
            }}
            type="button"
            role="tab"
            id={`${tabsId}-${which}`}
            aria-selected={tab === which}
            aria-controls={`${tabsId}-${which}-panel`}
            tabIndex={tab === which ? 0 : -1}
            onClick={() => {
              setTab(which);
            }}
            onKeyDown={onTabKey}
            onPointerEnter={which === 'members' ? () => void loadMembersPanel() : undefined}
            className={`-mb-px border-b-2 px-3 py-2 text-sm font-semibold transition-colors ${
              tab === which
                ? 'border-indigo-600 text-indigo-700 dark:border-indigo-400 dark:text-indigo-300'
                : 'muted border-transparent hover:text-zinc-900 dark:hover:text-zinc-100'
            }`}
          >
            {which === 'log' ? t`Log` : t`By member`}
          </button>
        ))}
      </div>

      <div
        role="tabpanel"
        id={`${tabsId}-log-panel`}
        aria-labelledby={`${tabsId}-log`}
        hidden={tab !== 'log'}
        className={tab === 'log' ? 'flex min-h-0 flex-1 flex-col' : 'hidden'}
      >
        {access !== 'tap' && (
          <div
            role="group"
            aria-label={t`Export`}
            className="flex flex-wrap items-center gap-1.5 border-b border-zinc-200 px-4 py-2.5 dark:border-zinc-800"
          >
            <span className="muted inline-flex w-full items-center gap-1 text-xs font-medium">
              <ArrowDownToLine className="size-3.5" />
              {t`Export`}
            </span>
            {EXPORTS.map((kind) => {
              const label = exportLabel(kind);
              return (
                <button
                  key={kind}
                  type="button"
                  onClick={() => {
                    download(kind, label);
                  }}
                  className="chip-btn"
                >
                  {label}
                </button>
              );
            })}
            {notice !== null && (
              <p role="status" className="muted w-full truncate text-xs">
                {notice}
              </p>
            )}
          </div>
        )}

        <div className="border-b border-zinc-200 px-4 py-2 dark:border-zinc-800">
          <input
            type="search"
            aria-label={t`Search the log`}
            placeholder={t`Search names, counters and notes`}
            value={search}
            onChange={(event) => {
              setSearch(event.target.value);
            }}
            className="w-full rounded-md border border-zinc-300 bg-transparent px-2.5 py-1.5 text-sm dark:border-zinc-700"
          />
        </div>

        {error !== null && (
          <ErrorBanner
            inPanel
            message={error}
            onDismiss={() => {
              setError(null);
            }}
          />
        )}

        <div ref={scroller} className="min-h-0 flex-1 overflow-y-auto overscroll-contain">
          {next === undefined ? (
            error === null ? (
              <p role="status" className="muted flex items-center justify-center gap-2 py-10">
                <Loader className="size-4 animate-spin" />
                {t`Loading activity…`}
              </p>
            ) : (
              <div className="py-10 text-center">
                <button
                  type="button"
                  onClick={() => {
                    setError(null);
                    catchUp.current();
                  }}
                  className="btn btn-secondary"
                >
                  {t`Try again`}
                </button>
              </div>
            )
          ) : entries.length === 0 ? (
            <p className="muted px-4 py-10 text-center">
              {t`No activity yet. Changes to the counters will show up here.`}
            </p>
          ) : (
            <ol
              aria-label={t`Activity log`}
              className="divide-y divide-zinc-200 dark:divide-zinc-800"
            >
              {entries.map((entry) => (
                <Entry
                  key={entry.id}
                  entry={entry}
                  byId={byId}
                  now={now}
                  busy={undoing.has(entry.id)}
                  onUndo={undo}
                  readOnly={readOnly}
                  search={search}
                  onNote={
                    access !== 'view' && mayEditNote(entry, member.name(), now)
                      ? (note) => {
                          editEntryNote(store, entry.id, note).then(
                            (edited) => {
                              setEntries((list) =>
                                list.map((item) => (item.id === edited.id ? edited : item)),
                              );
                            },
                            (reason: unknown) => {
                              setError(errorText(reason, t`The note could not be saved.`));
                            },
                          );
                        }
                      : undefined
                  }
                />
              ))}
            </ol>
          )}
          {entries.length > 0 && (
            <div
              ref={sentinel}
              className="border-t border-zinc-200 px-4 py-4 text-center dark:border-zinc-800"
            >
              {next === null ? (
                <span className="muted text-xs">{t`That is the beginning of the log.`}</span>
              ) : (
                <button
                  type="button"
                  onClick={loadOlder}
                  disabled={loadingOlder}
                  className="btn btn-secondary py-1.5"
                >
                  {loadingOlder && <Loader className="size-4 animate-spin" />}
                  {t`Load older`}
                </button>
              )}
            </div>
          )}
        </div>
      </div>

      {tab === 'members' && (
        <div
          role="tabpanel"
          id={`${tabsId}-members-panel`}
          aria-labelledby={`${tabsId}-members`}
          className="flex min-h-0 flex-1 flex-col"
        >
          <Suspense
            fallback={
              <p role="status" className="muted flex items-center justify-center gap-2 py-10">
                <Loader className="size-4 animate-spin" />
                {t`Loading who counted…`}
              </p>
            }
          >
            <MembersPanel store={store} />
          </Suspense>
        </div>
      )}
    </section>
  );
}

function Entry({
  entry,
  byId,
  now,
  busy,
  onUndo,
  readOnly,
  search,
  onNote,
}: {
  entry: ActivityEntry;
  byId: ReadonlyMap<number, ActivityEntry>;
  now: number;
  busy: boolean;
  onUndo: (entry: ActivityEntry) => void;
  readOnly: boolean;
  /** Entries whose who, what and note do not hold it are not shown. */
  search: string;
  /** Present while this member may change the entry's note (their own, 24 hours). */
  onNote: ((note: string) => void) | undefined;
}) {
  const { t } = useLingui();
  const [editing, setEditing] = useState(false);
  const { actor, text } = describeEntry(entry, byId);
  if (!entryMatches(search, actor, text, entry.note)) return null;
  const countedAt =
    entry.kind === 'counter.adjusted' && entry.countedAt !== undefined
      ? new Date(entry.countedAt).toLocaleString(dateLocale())
      : null;
  const undone = entry.undoneBy !== null;
  const at = Date.parse(entry.at);
  const undoneBy = entry.undoneBy === null ? undefined : byId.get(entry.undoneBy);
  const undoneByActor = undoneBy === undefined ? undefined : actorOf(undoneBy);
  return (
    <li className={`activity-entry ${undone ? 'activity-undone' : ''}`}>
      <KindBadge entry={entry} />
      <div className="min-w-0 flex-1">
        <p className="text-sm leading-5 break-words">
          <span className={undone ? 'line-through decoration-zinc-400' : ''}>
            <strong className="font-semibold">{actor}</strong> {text}
          </span>
          {/* The separator is held to the text's last word by a no-break space: when the time
              wraps, it starts its line, never "·". */}
          <span className="muted text-xs">{'\u00a0·'}</span>{' '}
          <span className="muted whitespace-nowrap text-xs">
            <time dateTime={entry.at} title={new Date(at).toLocaleString(dateLocale())}>
              {relativeTime(at, now)}
            </time>
          </span>
        </p>
        {countedAt !== null && (
          <p className="muted mt-0.5 text-xs">
            {entry.kind === 'counter.adjusted' && entry.correctedPeriod
              ? t`Counted for ${countedAt}: corrects that period's total`
              : t`Counted for ${countedAt}`}
          </p>
        )}
        {editing && onNote ? (
          <form
            className="mt-1 flex gap-1.5"
            onSubmit={(event) => {
              event.preventDefault();
              const field = event.currentTarget.elements.namedItem('note') as HTMLInputElement;
              onNote(field.value);
              setEditing(false);
            }}
          >
            <input
              name="note"
              aria-label={t`Note`}
              defaultValue={entry.note ?? ''}
              maxLength={NOTE_MAX_LENGTH}
              autoFocus
              className="min-w-0 flex-1 rounded-md border border-zinc-300 bg-transparent px-2 py-1 text-sm dark:border-zinc-700"
            />
            <button type="submit" className="chip-btn">
              {t`Save note`}
            </button>
          </form>
        ) : (
          (entry.note !== undefined || onNote) && (
            <p className="mt-0.5 text-sm break-words">
              {entry.note !== undefined && <q className="activity-note italic">{entry.note}</q>}{' '}
              {onNote && (
                <button
                  type="button"
                  onClick={() => {
                    setEditing(true);
                  }}
                  className="text-xs font-medium text-indigo-700 underline dark:text-indigo-300"
                >
                  {entry.note === undefined ? t`Add a note` : t`Edit note`}
                </button>
              )}
            </p>
          )
        )}
        {undone && (
          <p className="mt-0.5 text-xs font-medium text-amber-700 dark:text-amber-300">
            {undoneByActor === undefined ? t`Undone` : t`Undone by ${undoneByActor}`}
          </p>
        )}
      </div>
      {!readOnly && !undone && entry.undoOf === null && entry.kind !== 'counter.reset' && (
        <button
          type="button"
          onClick={() => {
            onUndo(entry);
          }}
          disabled={busy}
          aria-label={t`Undo: ${actor} ${text}`}
          title={t`Undo`}
          className="chip-btn shrink-0"
        >
          {busy ? (
            <Loader className="size-3.5 animate-spin" />
          ) : (
            <Undo className="size-3.5 rtl:-scale-x-100" />
          )}
          {t`Undo`}
        </button>
      )}
    </li>
  );
}

function KindBadge({ entry }: { entry: ActivityEntry }) {
  let tone = 'kind-neutral';
  let glyph: ReactNode;
  if (entry.undoOf !== null) glyph = <Undo className="size-3.5 rtl:-scale-x-100" />;
  else {
    switch (entry.kind) {
      case 'counter.adjusted':
        tone = entry.delta < 0 ? 'kind-down' : 'kind-up';
        glyph =
          entry.reachedGoal !== null ? (
            <Flag className="size-3.5" />
          ) : entry.delta < 0 ? (
            <Minus className="size-3.5" />
          ) : (
            <Plus className="size-3.5" />
          );
        break;
      case 'counter.reset':
        glyph = <RotateCcw className="size-3.5" />;
        break;
      case 'counters.reordered':
        glyph = <ArrowsUpDown className="size-3.5" />;
        break;
      case 'counter.created':
        tone = 'kind-up';
        glyph = <Plus className="size-3.5" />;
        break;
      case 'counter.deleted':
        tone = 'kind-down';
        glyph = <Trash className="size-3.5" />;
        break;
      default:
        glyph = <Pencil className="size-3.5" />;
    }
  }
  return (
    <span aria-hidden="true" className={`kind-badge ${tone}`}>
      {glyph}
    </span>
  );
}
