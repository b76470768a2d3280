import { describe, expect, it } from 'vitest';
import { MESSAGES } from '../../src/shared/messages.js';
import type { Operation } from '../../src/server/domain/operations.js';
import { NOW, commit, counterRow, groupRow, tap, type World } from '../helpers/domain.js';

const world = (counters: World['counters'], limits: Record<string, number> = {}): World => ({
  groups: [groupRow('g', { sectionLimits: limits })],
  counters,
});

const create = (fields: Record<string, unknown> = {}): Operation => ({
  groupId: 'g',
  actor: 'Ada',
  opId: 'create-1',
  mutation: { kind: 'createCounter', fields },
});

describe('domain: counters', () => {
  it('creates a counter with defaults, last in the order, counting the group first', () => {
    const result = commit(world([]), [create({ name: 'Coffees' })]);
    const counter = {
      ...counterRow('g', 'new-1', { name: 'Coffees' }).counter,
      createdAt: new Date(NOW).toISOString(),
      version: 11,
    };
    expect(result.requests[0]).toMatchObject({ countGroups: ['g'], countCap: 101 });
    expect(result.outcomes).toEqual([
      {
        ok: true,
        result: { kind: 'counter', counter, created: true },
        changes: [{ type: 'counter.created', seq: 11, counter, opIds: ['create-1'] }],
        replayed: false,
      },
    ]);
    expect(result.writes.counters).toEqual([
      {
        groupId: 'g',
        createdSeq: 11,
        position: null,
        nextResetAt: null,
        closedTotal: 0,
        counter,
        existed: false,
        onlyValue: false,
      },
    ]);
    expect(result.writes.entries[0]?.draft).toMatchObject({
      kind: 'counter.created',
      counterId: 'new-1',
      opIds: ['create-1'],
    });
    expect(result.writes.operationIds).toEqual([
      {
        groupId: 'g',
        opId: 'create-1',
        result: JSON.stringify({ kind: 'counter', counter, created: true }),
        entry: 0,
        fingerprint: expect.any(String) as string,
      },
    ]);
  });

  it("refuses a counter past the group's quota, and one whose limits exclude its value", () => {
    const full = commit(world([counterRow('g', 'a'), counterRow('g', 'b')]), [create()], {
      countersPerGroup: 2,
    });
    expect(full.outcomes).toEqual([
      { ok: false, code: 'too_many_counters', message: MESSAGES.tooManyCounters(2) },
    ]);
    expect(full.writes.counters).toEqual([]);

    const bad = commit(world([]), [create({ min: 5, max: 1 }), create({ value: 9, max: 5 })]);
    expect(bad.outcomes).toEqual([
      { ok: false, code: 'validation_failed', message: MESSAGES.minAboveMax },
      // The same operation id used again for another change is refused before it is applied.
      { ok: false, code: 'operation_id_reused', message: MESSAGES.operationIdReused },
    ]);
    const excluded = commit(world([]), [{ ...create({ value: 9, max: 5 }), opId: 'x' }]);
    expect(excluded.outcomes).toEqual([
      { ok: false, code: 'validation_failed', message: MESSAGES.limitsExcludeValue },
    ]);
  });

  it('refuses a new counter that would overfill its section', () => {
    const result = commit(
      world([counterRow('g', 'a', { value: 8, section: 'Bar' })], { Bar: 10 }),
      [create({ value: 3, section: 'Bar' })],
    );
    expect(result.outcomes).toEqual([
      { ok: false, code: 'limit_reached', message: MESSAGES.sectionFull('Bar', 10) },
    ]);
  });

  it('patches fields and a typed value, recording each field changed', () => {
    const result = commit(world([counterRow('g', 'c', { value: 3, name: 'Teas' })]), [
      {
        groupId: 'g',
        actor: 'Bo',
        mutation: { kind: 'updateCounter', counterId: 'c', patch: { name: 'Coffees', value: 10 } },
      },
    ]);
    const counter = {
      ...counterRow('g', 'c', { value: 10, name: 'Coffees' }).counter,
      version: 11,
    };
    expect(result.outcomes).toEqual([
      {
        ok: true,
        result: { kind: 'counter', counter, created: false },
        changes: [{ type: 'counter.updated', seq: 11, counter }],
        replayed: false,
      },
    ]);
    expect(result.writes.counters[0]).toMatchObject({ counter, existed: true, onlyValue: false });
    expect(result.writes.entries[0]?.draft).toMatchObject({
      kind: 'counter.updated',
      actor: 'Bo',
      counterName: 'Teas',
      detail: [
        { field: 'name', from: 'Teas', to: 'Coffees' },
        { field: 'value', from: 3, to: 10 },
      ],
    });
  });

  it('refuses limits that exclude the value, and a min above the max', () => {
    const update = (patch: Record<string, unknown>): Operation => ({
      groupId: 'g',
      mutation: { kind: 'updateCounter', counterId: 'c', patch },
    });
    const result = commit(world([counterRow('g', 'c', { value: 7 })]), [
      update({ max: 5 }),
      update({ min: 3, max: 2 }),
    ]);
    expect(result.outcomes).toEqual([
      { ok: false, code: 'validation_failed', message: MESSAGES.limitsExcludeValue },
      { ok: false, code: 'validation_failed', message: MESSAGES.minAboveMax },
    ]);
    expect(result.writes.counters).toEqual([]);
  });

  it('deletes a counter: a later tap of the same batch finds none', () => {
    const result = commit(world([counterRow('g', 'c', { value: 4 })]), [
      { groupId: 'g', mutation: { kind: 'deleteCounter', counterId: 'c' } },
      tap('c'),
    ]);
    expect(result.outcomes).toEqual([
      {
        ok: true,
        result: { kind: 'deleted', counterId: 'c' },
        changes: [{ type: 'counter.deleted', seq: 11, counterId: 'c' }],
        replayed: false,
      },
      { ok: false, code: 'counter_not_found', message: MESSAGES.counterNotFound },
    ]);
    expect(result.writes.deletedCounters).toEqual(['c']);
    expect(result.writes.counters).toEqual([]);
    expect(result.writes.entries[0]?.draft).toMatchObject({ kind: 'counter.deleted', value: null });
  });

  it('keeps the taps before an edit and after it in order: the edit ends the run', () => {
    const result = commit(world([counterRow('g', 'c', { value: 0 })]), [
      tap('c'),
      { groupId: 'g', mutation: { kind: 'updateCounter', counterId: 'c', patch: { value: 100 } } },
      tap('c'),
    ]);
    expect(result.changes.get('g')?.map((change) => change.seq)).toEqual([11, 12, 13]);
    expect(result.writes.counters[0]?.counter.value).toBe(101);
  });
});
