/**
 * The offline outbox (ADR 11, docs/product.md#offline-queue): this tab's unconfirmed changes to one
 * group, written to localStorage on every change so they outlive a reload, a crash or a phone
 * dropping the tab, and sent once the server is reachable again. Each keeps its operation id
 * (Idempotency-Key): a resend of a change the server already applied is answered from the server's
 * memory of operation ids (24 h, server/app.ts) and applied once.
 *
 * Layout: one entry per tab and group, `tally:outbox:<group>:<tab>`. The tab's id lives in
 * sessionStorage, which a reload of the same tab keeps. While open, a tab holds a Web Lock named
 * after its id; a tab opening the group adopts the entries of tabs that are gone (lock free).
 * Two tabs adopting one entry at the same moment is harmless: the server applies an operation id
 * once, and each tab retires it when the change carrying it arrives.
 *
 * The access key is never written here (the link carries it), only what the member typed or
 * tapped. Entries that do not parse are dropped, never half-applied.
 */
import { RESET_PERIODS, type CounterField, type GroupField } from '../../shared/fields.js';
import { ORDER_MAX_COUNTERS } from '../../shared/limits.js';
import { changeCount, type StoredOp } from './ops.js';

interface Entry {
  v: 1;
  /** When this entry was last written, ms since the epoch. */
  savedAt: number;
  ops: StoredOp[];
}

const PREFIX = 'tally:outbox:';
const TAB_ID_KEY = 'tally:tabId';
const LOCK_PREFIX = 'tally:tab:';
/**
 * Without Web Locks (old browsers, pages not served over HTTPS), another tab's entry is adopted
 * once it has not been written for this long, ms: a live tab rewrites its entry on every change.
 */
const FALLBACK_ADOPT_AFTER_MS = 60_000;

export const outboxKey = (group: string, tab: string) => `${PREFIX}${group}:${tab}`;

/**
 * Whose changes an outbox keeps: the group's (its access key; kept across a new key, sent once
 * this browser opens the group with it) or one tap link's. A tap link's taps are kept apart (a
 * group name never holds `@`), so taps kept by a link that is later revoked are never sent with
 * another key of the group.
 */
export const outboxOwner = (group: string, linkId: string | null): string =>
  linkId === null ? group : `${group}@${linkId}`;

// ---- parsing (the stored JSON is untrusted: another version, another tab, a hand edit) --------

const OP_ID = /^[A-Za-z0-9_-]{1,64}$/;
const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isInt = (value: unknown): value is number => Number.isSafeInteger(value);
const optionalName = (value: unknown) => (typeof value === 'string' ? { name: value } : {});

/**
 * 'url' and 'textOrNull': a string or null (none); 'intOrNull': a whole number or null;
 * 'reset': one of RESET_PERIODS or null.
 */
type FieldType = 'string' | 'int' | 'url' | 'intOrNull' | 'textOrNull' | 'reset';

const RESETS: readonly unknown[] = RESET_PERIODS;

function fieldOk(type: FieldType, raw: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof raw === 'string';
    case 'int':
      return isInt(raw);
    case 'url':
    case 'textOrNull':
      return raw === null || typeof raw === 'string';
    case 'intOrNull':
      return raw === null || isInt(raw);
    case 'reset':
      return raw === null || RESETS.includes(raw);
  }
}

function parsePatch(value: unknown, fields: Readonly<Record<string, FieldType>>) {
  if (!isRecord(value)) return null;
  const patch: Record<string, unknown> = {};
  for (const [field, raw] of Object.entries(value)) {
    const type = Object.hasOwn(fields, field) ? fields[field] : undefined;
    if (type === undefined || !fieldOk(type, raw)) return null;
    patch[field] = raw;
  }
  return Object.keys(patch).length > 0 ? patch : null;
}

/** A reorder's counter ids: distinct, non-empty, as many as a group may hold. */
function parseCounterIds(value: unknown): string[] | null {
  if (!Array.isArray(value) || value.length > ORDER_MAX_COUNTERS) return null;
  const ids: string[] = [];
  for (const id of value) {
    if (typeof id !== 'string' || id === '' || id.length > 64) return null;
    ids.push(id);
  }
  return new Set(ids).size === ids.length ? ids : null;
}

/**
 * How a stored value of each editable field is checked. The keys are typed by shared/fields.ts's
 * lists: a field added there does not compile here until it says its type.
 */
const COUNTER_FIELD_TYPES: Record<CounterField, FieldType> = {
  name: 'string',
  description: 'string',
  value: 'int',
  incrementStep: 'int',
  decrementStep: 'int',
  thumbnailUrl: 'url',
  goal: 'intOrNull',
  min: 'intOrNull',
  max: 'intOrNull',
  reset: 'reset',
  startValue: 'int',
  section: 'textOrNull',
};
const GROUP_FIELD_TYPES: Record<GroupField, FieldType> = {
  displayName: 'string',
  profileImageUrl: 'url',
  timeZone: 'string',
  weekStart: 'int',
};

/** One stored operation, or null when it is not one this version can send. */
export function parseStoredOp(value: unknown): StoredOp | null {
  if (!isRecord(value) || typeof value.opId !== 'string' || !OP_ID.test(value.opId)) return null;
  const { opId, counterId } = value;
  if (value.kind === 'create') return { kind: 'create', opId };
  if (value.kind === 'group') {
    const patch = parsePatch(value.patch, GROUP_FIELD_TYPES);
    return patch ? { kind: 'group', opId, patch } : null;
  }
  if (value.kind === 'reorder') {
    const counterIds = parseCounterIds(value.counterIds);
    return counterIds ? { kind: 'reorder', opId, counterIds } : null;
  }
  if (value.kind === 'section') {
    const { section, max } = value;
    if (typeof section !== 'string' || section.trim() === '') return null;
    if (max !== null && !(isInt(max) && max >= 0)) return null;
    return { kind: 'section', opId, section, max };
  }
  if (typeof counterId !== 'string' || counterId === '') return null;
  switch (value.kind) {
    case 'adjust': {
      const { direction, times, delta } = value;
      if (direction !== 'increment' && direction !== 'decrement') return null;
      if (!isInt(times) || times < 1 || !isInt(delta)) return null;
      return {
        kind: 'adjust',
        opId,
        counterId,
        direction,
        times,
        delta,
        ...optionalName(value.name),
        // A tap's note and earlier time (ADR 36) are kept only as text.
        ...(typeof value.note === 'string' && { note: value.note }),
        ...(typeof value.at === 'string' && { at: value.at }),
      };
    }
    case 'patch': {
      const patch = parsePatch(value.patch, COUNTER_FIELD_TYPES);
      if (!patch) return null;
      return { kind: 'patch', opId, counterId, patch, ...optionalName(value.name) };
    }
    case 'delete':
      return { kind: 'delete', opId, counterId, ...optionalName(value.name) };
    default:
      return null;
  }
}

/** A stored entry's operations (those that parse), and when it was written. */
export function parseEntry(text: string | null): { savedAt: number; ops: StoredOp[] } | null {
  if (text === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isRecord(value) || value.v !== 1 || !Array.isArray(value.ops)) return null;
  const savedAt = isInt(value.savedAt) ? value.savedAt : 0;
  const ops: StoredOp[] = [];
  for (const raw of value.ops) {
    const op = parseStoredOp(raw);
    if (op) ops.push(op);
  }
  return { savedAt, ops };
}

// ---- this tab --------------------------------------------------------------------------------

function sessionGet(key: string): string | null {
  try {
    return window.sessionStorage.getItem(key);
  } catch {
    return null;
  }
}

function sessionSet(key: string, value: string): void {
  try {
    window.sessionStorage.setItem(key, value);
  } catch {
    // A tab without session storage gets a new id on reload; its entry is adopted as another's.
  }
}

function randomId(): string {
  const bytes = new Uint8Array(9);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

const locks = (): LockManager | null =>
  typeof navigator !== 'undefined' && 'locks' in navigator ? navigator.locks : null;

/**
 * Page lifetimes overlap during a reload: the page being replaced may still hold its lock for a
 * moment. Waiting this long for it tells a reload from a duplicated tab (whose original keeps the
 * lock), ms.
 */
const LOCK_WAIT_MS = 1_000;

/**
 * Takes the named lock for the rest of the page's life, waiting up to `waitMs` for it; false when
 * another page keeps it.
 */
function holdForever(manager: LockManager, name: string, waitMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    manager
      .request(name, { signal: AbortSignal.timeout(waitMs) }, () => {
        resolve(true);
        // Never settles: the lock goes when the page does.
        return new Promise<never>(() => undefined);
      })
      .catch(() => {
        resolve(false);
      });
  });
}

let tab: Promise<string> | null = null;

/**
 * This tab's id, kept across reloads. A duplicated tab starts with a copy of the original's
 * session storage: its lock is taken, so it picks a new id.
 */
export function claimTab(): Promise<string> {
  tab ??= (async () => {
    const manager = locks();
    let id = sessionGet(TAB_ID_KEY) ?? randomId();
    if (manager && !(await holdForever(manager, LOCK_PREFIX + id, LOCK_WAIT_MS))) {
      id = randomId();
      await holdForever(manager, LOCK_PREFIX + id, LOCK_WAIT_MS);
    }
    sessionSet(TAB_ID_KEY, id);
    return id;
  })();
  return tab;
}

// ---- the outbox ------------------------------------------------------------------------------

function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

function keysWithPrefix(store: Storage, prefix: string): string[] {
  const keys: string[] = [];
  for (let index = 0; index < store.length; index += 1) {
    const key = store.key(index);
    if (key?.startsWith(prefix)) keys.push(key);
  }
  return keys;
}

/** Changes waiting for a group in this browser, from any tab: what the offline screen shows. */
export function waitingFor(group: string): number {
  const store = storage();
  if (!store) return 0;
  let count = 0;
  for (const key of keysWithPrefix(store, `${PREFIX}${group}:`)) {
    count += changeCount(parseEntry(store.getItem(key))?.ops ?? []);
  }
  return count;
}

export class Outbox {
  private key: string | null = null;
  /** False once a write failed (storage full or refused): closing the tab would lose changes. */
  durable = storage() !== null;

  /**
   * @param pending this page's pending operations now (written along with what is restored, for
   *   changes made before the outbox was open)
   */
  constructor(
    private readonly group: string,
    private readonly pending: () => readonly StoredOp[],
  ) {}

  /**
   * Claims this tab's entry and returns what is waiting: this tab's own (a reload) and those of
   * tabs that are gone, oldest first. Adopted entries are removed once this tab's entry holds them.
   */
  async open(): Promise<StoredOp[]> {
    const id = await claimTab();
    const store = storage();
    this.key = outboxKey(this.group, id);
    if (!store) return [];
    const held = await heldLocks();
    const now = Date.now();
    const found: { key: string; savedAt: number; ops: StoredOp[] }[] = [];
    for (const key of keysWithPrefix(store, `${PREFIX}${this.group}:`)) {
      const owner = key.slice(`${PREFIX}${this.group}:`.length);
      const own = key === this.key;
      const orphan = held
        ? !held.has(LOCK_PREFIX + owner)
        : now - (parseEntry(store.getItem(key))?.savedAt ?? 0) > FALLBACK_ADOPT_AFTER_MS;
      if (!own && !orphan) continue;
      const entry = parseEntry(store.getItem(key));
      if (entry) found.push({ key, ...entry });
      else store.removeItem(key);
    }
    found.sort((a, b) => a.savedAt - b.savedAt);
    const restored = found.flatMap((entry) => entry.ops);
    const seen = new Set<string>();
    const unique = restored.filter((op) => !seen.has(op.opId) && seen.add(op.opId));
    // Written before the adopted entries go, so a crash in between loses nothing.
    this.write([...unique, ...this.pending().filter((op) => !seen.has(op.opId))]);
    for (const entry of found) if (entry.key !== this.key) store.removeItem(entry.key);
    return unique;
  }

  /** Replaces this tab's entry with its current pending operations (once open: open writes them). */
  save(ops: readonly StoredOp[]): void {
    if (this.key !== null) this.write(ops);
  }

  private write(ops: readonly StoredOp[]): void {
    const store = storage();
    if (!store || this.key === null) return;
    try {
      if (ops.length === 0) store.removeItem(this.key);
      else {
        const entry: Entry = { v: 1, savedAt: Date.now(), ops: [...ops] };
        store.setItem(this.key, JSON.stringify(entry));
      }
      this.durable = true;
    } catch (error) {
      if (this.durable) console.warn('Could not keep unsent changes for a reload', error);
      this.durable = false;
    }
  }
}

/** Names of the Web Locks held in this browser, or null without the Web Locks API. */
async function heldLocks(): Promise<Set<string> | null> {
  const manager = locks();
  if (!manager) return null;
  try {
    const snapshot = await manager.query();
    return new Set((snapshot.held ?? []).map((lock) => lock.name ?? ''));
  } catch {
    return null;
  }
}
