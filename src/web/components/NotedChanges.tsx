/**
 * The changes with a note or counted for an earlier time (docs/product.md#notes-and-earlier-times),
 * newest first, where members read a counter's history and a member's tallies: who, how much,
 * when, the time it was counted for and the note, readable on screen. Asked for a page at a time
 * (`noted=true`, of a counter or a member), at most NOTES_SHOWN_MAX shown; the activity panel
 * holds the rest. Part of the lazily loaded history and By member chunks only.
 */
import { useLingui } from '@lingui/react/macro';
import { useEffect, useRef, useState } from 'react';
import type { ActivityEntry } from '../../shared/activity.js';
import { fetchNotedActivity } from '../lib/activity.js';
import { ApiRequestError } from '../lib/api.js';
import {
  NOTES_PAGE,
  NOTES_REQUESTS_PER_LOAD,
  NOTES_SHOWN_MAX,
  notesInScope,
  pastSince,
} from '../lib/notes.js';
import { signedNet } from '../lib/tallies.js';
import type { GroupStore } from '../live/groupStore.js';
import { Loader } from './icons/index.js';
import { dateLocale } from '../i18n/format.js';

const isolated = (text: string) => `\u2068${text}\u2069`;

const fullTime = (iso: string) =>
  new Date(iso).toLocaleString(dateLocale(), { dateStyle: 'medium', timeStyle: 'short' });

interface Loaded {
  /** Every noted entry received, newest first. */
  entries: ActivityEntry[];
  /** Where the next request goes on from; null at the beginning of the log. */
  next: number | null;
}

export function NotedChanges({
  store,
  counterId = null,
  member = null,
  link,
  since = null,
  showCounter,
  label,
  onShown,
}: {
  store: GroupStore;
  counterId?: string | null;
  /** One member's changes (the log's name); null for everyone's. */
  member?: string | null;
  /** Only changes through this tap link (its label), or the group's own link (null). */
  link?: string | null;
  /** Only changes counted at or after this time (epoch ms). */
  since?: number | null;
  /** Name the counter of each change (a list over several counters). */
  showCounter: boolean;
  /** The list's accessible name. */
  label: string;
  /** The entries shown, whenever they change (the history chart marks them). */
  onShown?: (entries: readonly ActivityEntry[]) => void;
}) {
  const { t } = useLingui();
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const scope = { since, link };
  const current = useRef(0);

  /** Asks on from `from` until a page's worth is in scope, the log begins or the range is past. */
  const load = async (from: Loaded) => {
    const asked = current.current;
    setBusy(true);
    setError(null);
    let { entries, next } = from;
    const had = notesInScope(entries, scope).length;
    try {
      for (let request = 0; request < NOTES_REQUESTS_PER_LOAD; request += 1) {
        const page = await fetchNotedActivity(
          store,
          { counterId, member, before: next },
          NOTES_PAGE,
        );
        entries = [...entries, ...page.entries];
        next = pastSince(page.entries, since) ? null : page.next;
        if (next === null || notesInScope(entries, scope).length - had >= NOTES_PAGE) break;
      }
      if (asked === current.current) setLoaded({ entries, next });
    } catch (reason) {
      if (asked !== current.current) return;
      setError(
        reason instanceof ApiRequestError && reason.serverMessage
          ? reason.serverMessage
          : t`The notes could not be loaded.`,
      );
    } finally {
      if (asked === current.current) setBusy(false);
    }
  };

  useEffect(() => {
    current.current += 1;
    setLoaded(null);
    void load({ entries: [], next: null });
    // A new counter, member, link or range: a new list.
  }, [store, counterId, member, link, since]);

  const inScope = loaded === null ? [] : notesInScope(loaded.entries, scope);
  const shown = inScope.slice(0, NOTES_SHOWN_MAX);
  const more = loaded !== null && (loaded.next !== null || inScope.length > shown.length);

  useEffect(() => {
    onShown?.(shown);
    // Only when what is shown changes.
  }, [loaded]);

  return (
    <div className="mt-2">
      {shown.length > 0 && (
        <ul aria-label={label} className="space-y-2">
          {shown.map((entry) => (
            <NotedChange key={entry.id} entry={entry} showCounter={showCounter} />
          ))}
        </ul>
      )}
      {error !== null ? (
        <p role="alert" className="mt-2 error-text text-sm">
          {error}
        </p>
      ) : loaded === null || busy ? (
        <p role="status" className="muted mt-2 flex items-center gap-2 text-sm">
          <Loader className="size-4 animate-spin" />
          {t`Loading notes…`}
        </p>
      ) : (
        shown.length === 0 && (
          <p className="muted mt-1 text-sm">{t`No notes and no counts for an earlier time yet.`}</p>
        )
      )}
      {!busy && more && shown.length < NOTES_SHOWN_MAX && (
        <button
          type="button"
          onClick={() => {
            void load(loaded);
          }}
          className="chip-btn mt-2"
        >
          {t`Show older notes`}
        </button>
      )}
      {more && shown.length >= NOTES_SHOWN_MAX && (
        <p className="muted mt-2 text-xs">
          {t`Older notes are in the Activity panel: search it for a note, a name or a counter.`}
        </p>
      )}
    </div>
  );
}

function NotedChange({ entry, showCounter }: { entry: ActivityEntry; showCounter: boolean }) {
  const { t } = useLingui();
  const who = entry.link === undefined ? entry.actor : `${entry.actor} · ${entry.link.label}`;
  const adjusted = entry.kind === 'counter.adjusted' ? entry : null;
  // Each value isolated (FSI … PDI): a name or number beside right-to-left words keeps its order.
  const amount = adjusted === null ? '' : isolated(signedNet(adjusted.delta));
  const counterName = isolated(entry.counterName ?? '');
  const what = adjusted === null ? '' : showCounter ? t`${amount} on ${counterName}` : amount;
  const countedFor =
    adjusted?.countedAt === undefined ? null : isolated(fullTime(adjusted.countedAt));
  return (
    <li className="rounded-lg border border-zinc-200 px-3 py-2 text-sm dark:border-zinc-800">
      <p className="break-words">
        <bdi className="font-semibold">{who}</bdi>
        {what !== '' && ' '}
        <span className="font-semibold tabular-nums">{what}</span>
        {entry.undoOf !== null && <span className="muted">{` (${t`undo`})`}</span>}
        <span className="muted text-xs">{'\u00a0·'}</span>{' '}
        <bdi className="muted text-xs whitespace-nowrap">
          <time dateTime={entry.at}>{fullTime(entry.at)}</time>
        </bdi>
      </p>
      {countedFor !== null && (
        <p className="muted mt-0.5 text-xs">
          {adjusted?.correctedPeriod
            ? t`Counted for ${countedFor}: corrects that period's total`
            : t`Counted for ${countedFor}`}
        </p>
      )}
      {entry.note !== undefined && (
        <p className="mt-0.5 break-words">
          <q className="italic">{entry.note}</q>
        </p>
      )}
      {entry.undoneBy !== null && (
        <p className="mt-0.5 text-xs font-medium text-amber-700 dark:text-amber-300">{t`Undone`}</p>
      )}
    </li>
  );
}
