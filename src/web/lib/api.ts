/**
 * The HTTP API client (src/server/routes/api.ts). Types only from shared/api.ts: its runtime is
 * zod, which must not ship to the browser; the server is same-origin and validates everything.
 */
import { t } from '@lingui/core/macro';
import type {
  AdjustDirection,
  ApiError,
  Counter,
  CounterPatchInput,
  ErrorCode,
  Group,
  GroupPatchInput,
  GroupPreview,
  GroupSnapshot,
  MutationResult,
} from '../../shared/api.js';

export type RequestErrorCode = ErrorCode | 'network_error' | 'bad_response';

/**
 * The app's words for an error code in the language in effect, set by i18n.ts when a language
 * other than English is chosen; none in English, where the server's own message is shown.
 */
export const errorWords: { of: ((code: RequestErrorCode) => string) | null } = { of: null };

export class ApiRequestError extends Error {
  override name = 'ApiRequestError';
  readonly code: RequestErrorCode;
  constructor(
    /** HTTP status; 0 when no answer arrived. */
    readonly status: number,
    /** What went wrong: the server's `{ code, message }`, or this client's own. */
    error: { code: RequestErrorCode; message: string },
    /** The answer's Retry-After, ms (a busy server says when to come back); 0 when absent. */
    readonly retryAfterMs = 0,
  ) {
    super(error.message);
    this.code = error.code;
  }

  /** No answer, or an answer that says "try again later": the operation may be retried. */
  get retriable(): boolean {
    return this.status === 0 || [408, 429, 502, 503, 504].includes(this.status);
  }

  /**
   * The server's message, when it sent one (the app shows it, else a message of its own): in a
   * language other than English, the app's own words for its code.
   */
  get serverMessage(): string | undefined {
    if (this.code === 'network_error' || this.code === 'bad_response') return undefined;
    return errorWords.of?.(this.code) ?? this.message;
  }
}

/**
 * The member's display name, sent with every change for the activity log. Set by main.tsx
 * (lib/storage.ts's 'Signed in as' name) rather than imported: see lib/activity.ts.
 */
export const member = { name: () => '' };

export interface RequestOptions {
  key?: string;
  body?: unknown;
  /** Idempotency-Key: a retried mutation is applied once. */
  opId?: string;
  signal?: AbortSignal;
}

export async function request<T>(
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  // An HTTP header, not text for people.
  // eslint-disable-next-line lingui/no-unlocalized-strings
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  if (options.opId !== undefined) {
    headers['idempotency-key'] = options.opId;
    // Every change is logged with who made it: the 'Signed in as' name.
    headers['tally-member'] = encodeURIComponent(member.name());
  }
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: options.body === undefined ? null : JSON.stringify(options.body),
      signal: options.signal ?? null,
      cache: 'no-store',
    });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new ApiRequestError(0, { code: 'network_error', message });
  }
  if (response.status === 204) return undefined as T;
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    const error = errorOf(body);
    const retryAfterMs = retryAfterOf(response.headers);
    if (error) throw new ApiRequestError(response.status, error, retryAfterMs);
    const message = `${response.status} ${response.statusText}`.trim();
    throw new ApiRequestError(response.status, { code: 'bad_response', message });
  }
  if (body === undefined) {
    throw new ApiRequestError(response.status, {
      code: 'bad_response',
      message: t`The server sent no data`,
    });
  }
  return body as T;
}

/** Longest Retry-After honoured, ms: a wrong header must not park the outbox for hours. */
const MAX_RETRY_AFTER_MS = 60_000;

/** Retry-After in seconds (Tally sends seconds, never a date), ms; 0 when absent or invalid. */
function retryAfterOf(headers: Headers): number {
  const seconds = Number(headers.get('retry-after') ?? '');
  return Number.isFinite(seconds) && seconds > 0
    ? Math.min(seconds * 1_000, MAX_RETRY_AFTER_MS)
    : 0;
}

/**
 * The error of an answer: Tally's `{ error: { code, message } }`, or Fastify's own
 * `{ statusCode, code, error, message }` (what a misconfigured error handler sends).
 */
function errorOf(body: unknown): ApiError['error'] | null {
  if (typeof body !== 'object' || body === null) return null;
  const candidate: unknown = 'error' in body && typeof body.error === 'object' ? body.error : body;
  if (
    typeof candidate === 'object' &&
    candidate !== null &&
    'code' in candidate &&
    'message' in candidate &&
    typeof candidate.code === 'string' &&
    typeof candidate.message === 'string'
  ) {
    return { code: candidate.code as ErrorCode, message: candidate.message };
  }
  return null;
}

export const groupPath = (name: string) => `/api/groups/${encodeURIComponent(name)}`;
const counterPath = (name: string, id: string) =>
  `${groupPath(name)}/counters/${encodeURIComponent(id)}`;

/** Landing existence check; null when the group does not exist. */
export async function fetchGroupPreview(
  name: string,
  signal?: AbortSignal,
): Promise<GroupPreview | null> {
  try {
    return await request<GroupPreview>('GET', groupPath(name), signal ? { signal } : {});
  } catch (error) {
    if (error instanceof ApiRequestError && error.status === 404) return null;
    throw error;
  }
}

/**
 * Opens a group with its key; creates it when it does not exist yet
 * (docs/product.md#group-screen).
 */
export function joinGroup(name: string, key: string): Promise<GroupSnapshot> {
  return request<GroupSnapshot>('POST', `${groupPath(name)}/join`, { body: { key } });
}

/**
 * A group and the key its requests are made with: the first argument of the calls below and of
 * lib/activity.ts's. A GroupStore is one (it passes itself).
 */
export interface GroupAuth {
  /** The group's name, as in its address. */
  readonly slug: string;
  /** Sent as the Bearer token. */
  readonly key: string;
}

/*
 * A queued write takes, after the group, the operation itself (live/ops.ts, as live/send.ts
 * sends it): what to change, and its `opId` for the Idempotency-Key. An undo takes the id of
 * what it takes back and its own `opId`.
 */

/** The group's counters, in the group's order (by creation time until reordered). */
export function fetchCounters({ slug, key }: GroupAuth): Promise<Counter[]> {
  return request<Counter[]>('GET', `${groupPath(slug)}/counters`, { key });
}

export function updateGroup(
  { slug, key }: GroupAuth,
  { patch, opId }: { patch: GroupPatchInput; opId: string },
): Promise<Group> {
  return request<Group>('PATCH', groupPath(slug), { key, body: patch, opId });
}

export function createCounter(
  { slug, key }: GroupAuth,
  { opId }: { opId: string },
): Promise<Counter> {
  return request<Counter>('POST', `${groupPath(slug)}/counters`, { key, body: {}, opId });
}

export function updateCounter(
  { slug, key }: GroupAuth,
  { counterId, patch, opId }: { counterId: string; patch: CounterPatchInput; opId: string },
): Promise<Counter> {
  return request<Counter>('PATCH', counterPath(slug, counterId), { key, body: patch, opId });
}

export function adjustCounter(
  { slug, key }: GroupAuth,
  {
    counterId,
    direction,
    times,
    opId,
    note,
    at,
  }: {
    counterId: string;
    direction: AdjustDirection;
    times: number;
    opId: string;
    note?: string | undefined;
    at?: string | undefined;
  },
): Promise<Counter> {
  return request<Counter>('POST', `${counterPath(slug, counterId)}/${direction}`, {
    key,
    // JSON leaves out what is undefined: a plain tap's body is what it always was.
    body: { times, note, at },
    opId,
  });
}

export function deleteCounter(
  { slug, key }: GroupAuth,
  { counterId, opId }: { counterId: string; opId: string },
): Promise<undefined> {
  return request<undefined>('DELETE', counterPath(slug, counterId), { key, opId });
}

/** Takes back what one of this tab's operations did (the toast's Undo, Ctrl+Z). */
export function undoOperation(
  { slug, key }: GroupAuth,
  undoneOpId: string,
  opId: string,
): Promise<MutationResult> {
  return request<MutationResult>('POST', `${groupPath(slug)}/undo`, {
    key,
    body: { opId: undoneOpId },
    opId,
  });
}

/** Takes back one entry of the activity log (the panel's Undo buttons). */
export function undoEntry(
  { slug, key }: GroupAuth,
  entryId: number,
  opId: string,
): Promise<MutationResult> {
  return request<MutationResult>('POST', `${groupPath(slug)}/activity/${entryId}/undo`, {
    key,
    opId,
  });
}

// ---- the counters' order and the sections' maximums -------------------------------------------

type CounterOrder = import('../../shared/api.js').CounterOrder;

/** Puts every counter of the group in this order (PUT …/order); answers the new order. */
export function reorderCounters(
  { slug, key }: GroupAuth,
  { counterIds, opId }: { counterIds: readonly string[]; opId: string },
): Promise<CounterOrder> {
  const body: import('../../shared/api.js').OrderInput = { counterIds: [...counterIds] };
  return request<CounterOrder>('PUT', `${groupPath(slug)}/order`, { key, body, opId });
}

/** Sets (a number) or clears (null) a section's maximum; answers the group. */
export function updateSection(
  { slug, key }: GroupAuth,
  { section, max, opId }: { section: string; max: number | null; opId: string },
): Promise<Group> {
  const body: import('../../shared/api.js').SectionInput = { max };
  const path = `${groupPath(slug)}/sections/${encodeURIComponent(section)}`;
  return request<Group>('PUT', path, { key, body, opId });
}
