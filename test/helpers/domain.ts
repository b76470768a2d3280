/**
 * Drives the domain's commit (src/server/domain/commit.ts) without a database: the rows a store
 * would hold are plain objects (`World`), and each read request is answered from them the way
 * the stores answer it (by id, by group, by section; counts held at the cap). Nothing of the
 * domain is replaced: the test sees its real reads, outcomes and writes.
 */
import { NO_ALERTS } from '../../src/server/domain/alert-config.js';
import type { ActivityEntry } from '../../src/shared/activity.js';
import type { Counter } from '../../src/shared/api.js';
import { commitBatch } from '../../src/server/domain/commit.js';
import {
  runSync,
  type BatchResult,
  type CommitOptions,
  type ReadAnswer,
  type ReadRequest,
  type StoredCounter,
  type StoredGroup,
  type StoredOperationId,
  type StoredSession,
} from '../../src/server/domain/commit-io.js';
import type { GroupRecord, Operation } from '../../src/server/domain/operations.js';
import { GROUP_CALENDAR_DEFAULTS, noPurpose } from './fixtures.js';

/** What the store holds before the batch. */
export interface World {
  groups: StoredGroup[];
  counters: StoredCounter[];
  operationIds?: StoredOperationId[];
  sessions?: StoredSession[];
  entries?: { groupId: string; entry: ActivityEntry }[];
}

/** The batch's clock in these tests: 2026-03-10 12:00 UTC (a Tuesday). */
export const NOW = Date.UTC(2026, 2, 10, 12, 0, 0);

export function groupRow(id: string, fields: Partial<GroupRecord> = {}, seq = 10): StoredGroup {
  return {
    record: {
      id,
      name: id,
      displayName: id,
      profileImageUrl: null,
      ...GROUP_CALENDAR_DEFAULTS,
      keyHash: 'key-hash',
      viewKeyHash: null,
      tapLinks: [],
      ...fields,
    },
    seq,
    alerts: NO_ALERTS,
    logHead: null,
  };
}

/** A counter row of group `groupId`, created at `createdSeq` (its version), no period running. */
export function counterRow(
  groupId: string,
  id: string,
  fields: Partial<Counter> = {},
  row: Partial<Omit<StoredCounter, 'counter' | 'groupId'>> = {},
): StoredCounter {
  const value = fields.value ?? 0;
  return {
    groupId,
    createdSeq: row.createdSeq ?? 1,
    position: row.position ?? null,
    nextResetAt: row.nextResetAt ?? null,
    closedTotal: row.closedTotal ?? 0,
    counter: {
      id,
      name: id,
      description: '',
      value,
      incrementStep: 1,
      decrementStep: 1,
      thumbnailUrl: null,
      ...noPurpose(value + (row.closedTotal ?? 0)),
      createdAt: '2026-03-01T09:00:00.000Z',
      version: row.createdSeq ?? 1,
      ...fields,
    },
  };
}

/** Answers one read request from the world, as a store would. */
export function answer(world: World, request: ReadRequest): ReadAnswer {
  const key = (groupId: string, name: string) => `${groupId}\u0000${name}`;
  const wantedIds = new Set(request.operationIds.map((id) => key(id.groupId, id.opId)));
  const wantedSessions = new Set(request.sessions.map((s) => key(s.groupId, s.session)));
  const wantedSections = new Set(request.sections.map((s) => key(s.groupId, s.section)));
  const counters = world.counters.filter(
    (row) =>
      request.counters.includes(row.counter.id) ||
      request.groupCounters.includes(row.groupId) ||
      (row.counter.section !== null && wantedSections.has(key(row.groupId, row.counter.section))),
  );
  const counts = new Map<string, number>();
  for (const groupId of request.countGroups) {
    const count = world.counters.filter((row) => row.groupId === groupId).length;
    counts.set(groupId, Math.min(count, request.countCap));
  }
  return {
    groups: world.groups.filter((group) => request.groups.includes(group.record.id)),
    operationIds: (world.operationIds ?? []).filter((row) =>
      wantedIds.has(key(row.groupId, row.opId)),
    ),
    sessions: (world.sessions ?? []).filter((row) =>
      wantedSessions.has(key(row.groupId, row.session)),
    ),
    entries: (world.entries ?? []).filter(({ entry }) => request.entries.includes(entry.id)),
    counters,
    counts,
  };
}

export interface Committed extends BatchResult {
  /** Every read request of the batch, in order. */
  requests: ReadRequest[];
}

/** Commits `operations` against the world: no database, the real algorithm. */
export function commit(
  world: World,
  operations: readonly Operation[],
  options: Partial<CommitOptions> = {},
): Committed {
  const requests: ReadRequest[] = [];
  let created = 0;
  const result = runSync(
    commitBatch(operations, {
      activityLog: true,
      countersPerGroup: 100,
      now: NOW,
      countedAtWindowDays: 365,
      newCounterId: () => `new-${String(++created)}`,
      ...options,
    }),
    (request) => {
      requests.push(request);
      return answer(world, request);
    },
  );
  return { ...result, requests };
}

/** A tap of `counterId` in group g. */
export const tap = (
  counterId: string,
  direction: 'increment' | 'decrement' = 'increment',
  extra: Partial<Operation> = {},
  times = 1,
): Operation => ({
  groupId: 'g',
  actor: 'Ada',
  mutation: { kind: 'adjustCounter', counterId, direction, times },
  ...extra,
});
