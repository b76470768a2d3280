/**
 * Calls of the activity log, history and export endpoints; the undo calls are writes and go through
 * the store (lib/api.ts). Only the lazily loaded parts of the group screen (sparklines, activity
 * panel, chart) import this module, so it costs the first render nothing. Types only from
 * shared/activity.ts (its runtime is zod).
 *
 * Keep this chunk's imports to api.ts and the icons: with rolldown 1.2 a lazy chunk importing
 * ids.ts (or limits.ts together with the icons, when they were still one module) moves shared
 * modules out of the entry chunk into extra chunks, +250 B on the first load (upstream bug
 * rolldown/rolldown#10731).
 */
import type {
  ActivityEntry,
  ActivityPage,
  CounterHistory,
  CounterPeriods,
  GroupHistory,
} from '../../shared/activity.js';
import type { Tally } from '../../shared/api.js';
import { NOTE_EDIT_WINDOW_MS } from '../../shared/limits.js';
import { ApiRequestError, groupPath, request, type GroupAuth } from './api.js';

/** Entries per page of the activity panel: a year-old group still opens with one small answer. */
export const ACTIVITY_PAGE_SIZE = 50;
/** Most entries one "what is new" request asks for; a longer gap reloads the newest page. */
export const ACTIVITY_CATCH_UP = 200;

export type ActivityCursor = { before: number } | { after: number } | Record<string, never>;

/** A page of the activity log: `limit` entries (ACTIVITY_PAGE_SIZE unless given) from `cursor`. */
export function fetchActivity(
  { slug, key }: GroupAuth,
  cursor: ActivityCursor,
  { limit = ACTIVITY_PAGE_SIZE, signal }: { limit?: number; signal?: AbortSignal } = {},
): Promise<ActivityPage> {
  const query = new URLSearchParams({ limit: String(limit) });
  if ('before' in cursor) query.set('before', String(cursor.before));
  if ('after' in cursor) query.set('after', String(cursor.after));
  return request<ActivityPage>('GET', `${groupPath(slug)}/activity?${query.toString()}`, {
    key,
    ...(signal ? { signal } : {}),
  });
}

/**
 * A page of the changes with a note or an earlier time (`noted=true`), newest first: of one
 * counter with `counterId`, of one member with `member` (the server looks through a bounded
 * number a request, so a page may be short and its `next` still goes on).
 */
export function fetchNotedActivity(
  { slug, key }: GroupAuth,
  filter: { counterId?: string | null; member?: string | null; before?: number | null },
  limit: number,
): Promise<ActivityPage> {
  const query = new URLSearchParams({ noted: 'true', limit: String(limit) });
  if (filter.counterId != null) query.set('counter', filter.counterId);
  if (filter.member != null) query.set('member', filter.member);
  if (filter.before != null) query.set('before', String(filter.before));
  return request<ActivityPage>('GET', `${groupPath(slug)}/activity?${query.toString()}`, { key });
}

/**
 * Sets (blank: removes) the note of an entry this member made in the last 24 hours. The request
 * carries an operation id so that it names the member (Tally-Member), as changes do.
 */
export function editEntryNote(
  { slug, key }: GroupAuth,
  entryId: number,
  note: string,
): Promise<ActivityEntry> {
  return request<ActivityEntry>('PATCH', `${groupPath(slug)}/activity/${entryId}`, {
    key,
    body: { note },
    opId: `note-${entryId}-${Date.now()}`,
  });
}

/** Whether the member named `member` may still change this entry's note (24 hours, own entry). */
export function mayEditNote(entry: ActivityEntry, member: string, now: number): boolean {
  return (
    entry.kind !== 'counter.reset' &&
    // The server's stored name for a member who gave none (UNKNOWN_MEMBER of shared/activity.ts,
    // whose module is zod at run time): compared with the log's data, never shown from here.
    // eslint-disable-next-line lingui/no-unlocalized-strings -- a stored value, not text
    entry.actor === (member.trim() === '' ? 'Someone' : member.trim()) &&
    now - Date.parse(entry.at) <= NOTE_EDIT_WINDOW_MS
  );
}

/** Whether an entry's who, what or note holds the search (case-insensitive). */
export function entryMatches(search: string, ...texts: (string | undefined)[]): boolean {
  const wanted = search.trim().toLocaleLowerCase();
  return wanted === '' || texts.some((text) => text?.toLocaleLowerCase().includes(wanted));
}

export function fetchGroupHistory({ slug, key }: GroupAuth, points: number) {
  return request<GroupHistory>('GET', `${groupPath(slug)}/history?points=${points}`, { key });
}

export function fetchCounterHistory({ slug, key }: GroupAuth, id: string, points: number) {
  return request<CounterHistory>(
    'GET',
    `${groupPath(slug)}/counters/${encodeURIComponent(id)}/history?points=${points}`,
    { key },
  );
}

/**
 * Who counted how much (GET …/tallies), from the activity log: one row per member, tap link and
 * counter (per link and counter with `by: 'link'`); of one counter with `counterId`, of the
 * changes at or after `since` (epoch ms) with it.
 */
export function fetchTallies(
  { slug, key }: GroupAuth,
  filter: { counterId?: string | null; since?: number | null; by?: 'member' | 'link' },
  signal?: AbortSignal,
): Promise<Tally[]> {
  const query = new URLSearchParams();
  if (filter.counterId != null) query.set('counterId', filter.counterId);
  if (filter.since != null) query.set('since', new Date(filter.since).toISOString());
  if (filter.by === 'link') query.set('by', 'link');
  const search = query.toString() === '' ? '' : `?${query.toString()}`;
  return request<Tally[]>('GET', `${groupPath(slug)}/tallies${search}`, {
    key,
    ...(signal ? { signal } : {}),
  });
}

/** A counter's ended periods, newest first (GET …/counters/{id}/periods). */
export function fetchCounterPeriods({ slug, key }: GroupAuth, id: string, limit: number) {
  return request<CounterPeriods>(
    'GET',
    `${groupPath(slug)}/counters/${encodeURIComponent(id)}/periods?limit=${limit}`,
    { key },
  );
}

export type ExportKind = 'counters' | 'activity' | 'periods' | 'json';

const EXPORT_QUERY: Record<ExportKind, string> = {
  counters: 'format=csv&data=counters',
  activity: 'format=csv&data=activity',
  periods: 'format=csv&data=periods',
  json: 'format=json',
};

/**
 * Downloads an export. The key travels in the Authorization header, which a plain link cannot
 * send: fetch the file, then save the Blob under the server's file name.
 */
export async function downloadExport({ slug, key }: GroupAuth, kind: ExportKind): Promise<string> {
  let response: Response;
  try {
    response = await fetch(`${groupPath(slug)}/export?${EXPORT_QUERY[kind]}`, {
      headers: { authorization: `Bearer ${key}` },
      cache: 'no-store',
    });
  } catch (error) {
    throw new ApiRequestError(0, {
      code: 'network_error',
      message: error instanceof Error ? error.message : '',
    });
  }
  if (!response.ok) {
    let message = `${response.status} ${response.statusText}`.trim();
    try {
      const body = (await response.json()) as { error?: { message?: string } };
      message = body.error?.message ?? message;
    } catch {
      // Not JSON: the status line says enough.
    }
    throw new ApiRequestError(response.status, { code: 'bad_response', message });
  }
  const blob = await response.blob();
  const name =
    fileNameOf(response.headers.get('content-disposition')) ??
    `${slug}-${kind === 'json' ? 'export.json' : `${kind}.csv`}`;
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has its own copy once click() returns; a minute is generous for slow devices.
  setTimeout(() => {
    URL.revokeObjectURL(url);
  }, 60_000);
  return name;
}

/** The file name of a Content-Disposition header: `filename*=UTF-8''…` wins over `filename=`. */
export function fileNameOf(header: string | null): string | null {
  if (header === null) return null;
  const extended = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(header)?.[1];
  if (extended !== undefined) {
    try {
      return safeName(decodeURIComponent(extended.trim()));
    } catch {
      // Malformed escapes: fall back to the plain parameter.
    }
  }
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/.exec(header);
  const value = plain?.[1]?.replace(/\\(.)/g, '$1') ?? plain?.[2];
  return value === undefined ? null : safeName(value);
}

/** Only a base name: the browser sanitises too, but a path has no business in a file name. */
function safeName(name: string): string | null {
  const base = name.split(/[/\\]/).pop()?.trim() ?? '';
  return base === '' || base === '.' || base === '..' ? null : base;
}
