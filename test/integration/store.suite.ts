/**
 * The store contract: every Store implementation (SQLite, PostgreSQL) must pass these tests.
 * Call describeStoreContract from a *.test.ts file with a factory for fresh, migrated stores.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashKey } from '../../src/server/core/access.js';
import type { Operation, OperationOutcome, Store } from '../../src/server/store/types.js';
import type { Counter, Mutation } from '../../src/shared/api.js';
import { MAX_VALUE } from '../../src/shared/limits.js';

export interface StoreFactory {
  /** A fresh store with its schema migrated and no data shared with other tests. */
  create: () => Promise<Store>;
  /** Opens the same database again (after close), to prove data is durable. */
  reopen?: (store: Store) => Promise<Store>;
}

let nameCounter = 0;
const uniqueName = () => `store-test-${Date.now()}-${++nameCounter}`;

export function describeStoreContract(label: string, factory: StoreFactory): void {
  describe(`${label} store contract`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await factory.create();
    });
    afterEach(async () => {
      await store.close();
    });

    async function newGroup() {
      const { group } = await store.createGroup(uniqueName(), hashKey('ab'.repeat(16)));
      return group;
    }

    async function commitOne(
      groupId: string,
      mutation: Mutation,
      opId?: string,
    ): Promise<OperationOutcome> {
      const [outcome] = await store.commit([{ groupId, mutation, opId }]);
      if (!outcome) throw new Error('no outcome');
      return outcome;
    }

    async function createCounter(
      groupId: string,
      fields: Extract<Mutation, { kind: 'createCounter' }>['fields'] = {},
    ): Promise<Counter> {
      const outcome = await commitOne(groupId, { kind: 'createCounter', fields });
      if (!outcome.ok || outcome.result.kind !== 'counter') throw new Error('create failed');
      return outcome.result.counter;
    }

    function counterOf(outcome: OperationOutcome): Counter {
      if (!outcome.ok || outcome.result.kind !== 'counter')
        throw new Error(`not a counter: ${JSON.stringify(outcome)}`);
      return outcome.result.counter;
    }

    it('migrates idempotently', async () => {
      await store.migrate();
      await store.migrate();
      expect(await store.findGroup('does-not-exist')).toBeNull();
    });

    it('creates a group once, with name and display name equal to the slug and the key hash', async () => {
      const name = uniqueName();
      const first = await store.createGroup(name, hashKey('a'.repeat(32)));
      expect(first.created).toBe(true);
      expect(first.group).toMatchObject({
        name,
        displayName: name,
        profileImageUrl: null,
        keyHash: hashKey('a'.repeat(32)),
      });
      const second = await store.createGroup(name, hashKey('b'.repeat(32)));
      expect(second.created).toBe(false);
      expect(second.group.id).toBe(first.group.id);
      expect(second.group.keyHash).toBe(hashKey('a'.repeat(32)));
      expect(await store.findGroup(name)).toEqual(first.group);
    });

    it('creates a counter with the defaults of a new counter and the next change number', async () => {
      const group = await newGroup();
      const outcome = await commitOne(group.id, { kind: 'createCounter', fields: {} });
      expect(outcome.ok).toBe(true);
      const counter = counterOf(outcome);
      expect(counter).toMatchObject({
        name: 'New Counter',
        description: '',
        value: 0,
        incrementStep: 1,
        decrementStep: 1,
        thumbnailUrl: null,
        version: 1,
      });
      expect(Number.isNaN(Date.parse(counter.createdAt))).toBe(false);
      expect(outcome.ok && outcome.changes).toEqual([{ type: 'counter.created', seq: 1, counter }]);
    });

    it('lists counters ordered by creation, with the latest change number', async () => {
      const group = await newGroup();
      const made: Counter[] = [];
      for (let i = 0; i < 5; i++) made.push(await createCounter(group.id, { name: `c${i}` }));
      const state = await store.loadGroupState(group.id);
      expect(state?.counters.map((c) => c.name)).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
      expect(state?.seq).toBe(5);
      expect(state?.group.id).toBe(group.id);
      expect(await store.loadGroupState('no-such-group')).toBeNull();
    });

    it('increments by the increment step and decrements by the decrement step, times n, below zero too', async () => {
      const group = await newGroup();
      const counter = await createCounter(group.id, { incrementStep: 5, decrementStep: 3 });
      const up = counterOf(
        await commitOne(group.id, {
          kind: 'adjustCounter',
          counterId: counter.id,
          direction: 'increment',
          times: 2,
        }),
      );
      expect(up.value).toBe(10);
      const down = counterOf(
        await commitOne(group.id, {
          kind: 'adjustCounter',
          counterId: counter.id,
          direction: 'decrement',
          times: 4,
        }),
      );
      expect(down.value).toBe(-2);
      expect(down.version).toBeGreaterThan(up.version);
    });

    it('applies 100 concurrent increments exactly once each', async () => {
      const group = await newGroup();
      const counter = await createCounter(group.id);
      const outcomes = await Promise.all(
        Array.from({ length: 100 }, () =>
          commitOne(group.id, {
            kind: 'adjustCounter',
            counterId: counter.id,
            direction: 'increment',
            times: 1,
          }),
        ),
      );
      expect(outcomes.every((o) => o.ok)).toBe(true);
      const state = await store.loadGroupState(group.id);
      expect(state?.counters[0]?.value).toBe(100);
    });

    it('refuses an increment that would leave the exact integer range, changing nothing', async () => {
      const group = await newGroup();
      const counter = await createCounter(group.id, { value: MAX_VALUE - 1 });
      const outcome = await commitOne(group.id, {
        kind: 'adjustCounter',
        counterId: counter.id,
        direction: 'increment',
        times: 2,
      });
      expect(outcome).toMatchObject({ ok: false, code: 'value_out_of_range' });
      const state = await store.loadGroupState(group.id);
      expect(state?.counters[0]?.value).toBe(MAX_VALUE - 1);
    });

    it('updates only the fields of a patch and bumps the version', async () => {
      const group = await newGroup();
      const counter = await createCounter(group.id, { name: 'Coffee', description: 'cups' });
      const updated = counterOf(
        await commitOne(group.id, {
          kind: 'updateCounter',
          counterId: counter.id,
          patch: { value: 42, thumbnailUrl: 'https://example.com/a.png' },
        }),
      );
      expect(updated).toMatchObject({
        name: 'Coffee',
        description: 'cups',
        value: 42,
        thumbnailUrl: 'https://example.com/a.png',
      });
      expect(updated.version).toBeGreaterThan(counter.version);
      const cleared = counterOf(
        await commitOne(group.id, {
          kind: 'updateCounter',
          counterId: counter.id,
          patch: { thumbnailUrl: null },
        }),
      );
      expect(cleared.thumbnailUrl).toBeNull();
    });

    it('treats a counter of another group as not found for every mutation', async () => {
      const mine = await newGroup();
      const theirs = await newGroup();
      const counter = await createCounter(theirs.id);
      const attempts: Mutation[] = [
        { kind: 'updateCounter', counterId: counter.id, patch: { value: 9 } },
        { kind: 'adjustCounter', counterId: counter.id, direction: 'increment', times: 1 },
        { kind: 'deleteCounter', counterId: counter.id },
      ];
      for (const mutation of attempts) {
        expect(await commitOne(mine.id, mutation)).toMatchObject({
          ok: false,
          code: 'counter_not_found',
        });
      }
      const state = await store.loadGroupState(theirs.id);
      expect(state?.counters[0]).toEqual(counter);
    });

    it('deletes a counter and announces the deletion', async () => {
      const group = await newGroup();
      const counter = await createCounter(group.id);
      const outcome = await commitOne(group.id, { kind: 'deleteCounter', counterId: counter.id });
      expect(outcome).toMatchObject({
        ok: true,
        result: { kind: 'deleted', counterId: counter.id },
      });
      expect(outcome.ok && outcome.changes[0]).toMatchObject({
        type: 'counter.deleted',
        counterId: counter.id,
      });
      expect((await store.loadGroupState(group.id))?.counters).toEqual([]);
      expect(
        await commitOne(group.id, { kind: 'deleteCounter', counterId: counter.id }),
      ).toMatchObject({ ok: false, code: 'counter_not_found' });
    });

    it('updates the group display name and profile picture without exposing the key hash', async () => {
      const group = await newGroup();
      const outcome = await commitOne(group.id, {
        kind: 'updateGroup',
        patch: { displayName: 'Night Owls', profileImageUrl: 'https://example.com/owl.png' },
      });
      expect(outcome.ok && outcome.result).toEqual({
        kind: 'group',
        group: {
          id: group.id,
          name: group.name,
          displayName: 'Night Owls',
          profileImageUrl: 'https://example.com/owl.png',
          timeZone: 'UTC',
          weekStart: 1,
          sectionLimits: {},
        },
      });
      expect(JSON.stringify(outcome)).not.toContain(group.keyHash);
      expect((await store.findGroup(group.name))?.displayName).toBe('Night Owls');
    });

    it('applies a retried operation id once and answers with the first result', async () => {
      const group = await newGroup();
      const counter = await createCounter(group.id);
      const mutation: Mutation = {
        kind: 'adjustCounter',
        counterId: counter.id,
        direction: 'increment',
        times: 1,
      };
      const first = await commitOne(group.id, mutation, 'op-1');
      const retry = await commitOne(group.id, mutation, 'op-1');
      expect(first).toMatchObject({ ok: true, replayed: false });
      expect(retry).toMatchObject({ ok: true, replayed: true, changes: [] });
      expect(retry.ok && retry.result).toEqual(first.ok && first.result);
      expect((await store.loadGroupState(group.id))?.counters[0]?.value).toBe(1);
      // The same id in another group is another operation.
      const other = await newGroup();
      const otherCounter = await createCounter(other.id);
      const elsewhere = await commitOne(
        other.id,
        { ...mutation, counterId: otherCounter.id },
        'op-1',
      );
      expect(elsewhere).toMatchObject({ ok: true, replayed: false });
    });

    it('dedupes the same operation id twice within one batch', async () => {
      const group = await newGroup();
      const counter = await createCounter(group.id);
      const op: Operation = {
        groupId: group.id,
        opId: 'twice',
        mutation: {
          kind: 'adjustCounter',
          counterId: counter.id,
          direction: 'increment',
          times: 1,
        },
      };
      const outcomes = await store.commit([op, op]);
      expect(outcomes.map((o) => o.ok && o.replayed)).toEqual([false, true]);
      expect((await store.loadGroupState(group.id))?.counters[0]?.value).toBe(1);
    });

    it('forgets operation ids older than the given age', async () => {
      const group = await newGroup();
      const counter = await createCounter(group.id);
      const mutation: Mutation = {
        kind: 'adjustCounter',
        counterId: counter.id,
        direction: 'increment',
        times: 1,
      };
      await commitOne(group.id, mutation, 'old-op');
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(await store.pruneOperationIds(1)).toBeGreaterThanOrEqual(1);
      expect(await commitOne(group.id, mutation, 'old-op')).toMatchObject({
        ok: true,
        replayed: false,
      });
    });

    it('forgets expired operation ids in chunks, however many there are, and keeps fresh ones', async () => {
      const group = await newGroup();
      const counter = await createCounter(group.id);
      const tap = (opId: string): Operation => ({
        groupId: group.id,
        opId,
        mutation: {
          kind: 'adjustCounter',
          counterId: counter.id,
          direction: 'increment',
          times: 1,
        },
      });
      // More than one chunk of the pruning statement (500 rows on SQLite, 5,000 on PostgreSQL).
      const expired = Array.from({ length: 5_300 }, (_, i) => `expired-${i}`);
      for (let i = 0; i < expired.length; i += 1_000) {
        await store.commit(expired.slice(i, i + 1_000).map(tap));
      }
      const expiredBy = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      await store.commit([tap('fresh')]);
      // The cutoff falls 100 ms after the last expired id, 900 ms before the fresh one: room for
      // a loaded machine to start the pruning statement late.
      expect(await store.pruneOperationIds(Date.now() - (expiredBy + 100))).toBe(expired.length);
      const again = await store.commit([tap('expired-0'), tap('fresh')]);
      expect(again.map((o) => o.ok && o.replayed)).toEqual([false, true]);
    });

    it('numbers the changes of one batch consecutively in order, and a failed one takes no number', async () => {
      const group = await newGroup();
      const counter = await createCounter(group.id);
      const outcomes = await store.commit([
        {
          groupId: group.id,
          mutation: {
            kind: 'adjustCounter',
            counterId: counter.id,
            direction: 'increment',
            times: 1,
          },
        },
        { groupId: group.id, mutation: { kind: 'deleteCounter', counterId: 'missing' } },
        {
          groupId: group.id,
          mutation: { kind: 'updateCounter', counterId: counter.id, patch: { name: 'Renamed' } },
        },
        { groupId: group.id, mutation: { kind: 'createCounter', fields: {} } },
      ]);
      const seqs = outcomes.flatMap((o) => (o.ok ? o.changes.map((c) => c.seq) : []));
      expect(seqs).toEqual([2, 3, 4]);
      expect(outcomes[1]).toMatchObject({ ok: false, code: 'counter_not_found' });
      expect((await store.loadGroupState(group.id))?.seq).toBe(4);
    });

    it('coalesces taps on one counter in a batch into one update and one change listing every operation id', async () => {
      const group = await newGroup();
      const counter = await createCounter(group.id, { incrementStep: 2, decrementStep: 3 });
      const tap = (direction: 'increment' | 'decrement', opId: string): Operation => ({
        groupId: group.id,
        opId,
        mutation: { kind: 'adjustCounter', counterId: counter.id, direction, times: 1 },
      });
      const outcomes = await store.commit([
        tap('increment', 'a'),
        tap('increment', 'b'),
        tap('decrement', 'c'),
        tap('increment', 'd'),
      ]);
      // 3 × 2 − 1 × 3 = 3, as one change with one change number.
      const changes = outcomes.flatMap((o) => (o.ok ? o.changes : []));
      expect(changes).toHaveLength(1);
      expect(changes[0]).toMatchObject({
        type: 'counter.updated',
        seq: 2,
        opIds: ['a', 'b', 'c', 'd'],
        counter: { value: 3, version: 2 },
      });
      for (const outcome of outcomes) expect(counterOf(outcome).value).toBe(3);
      // Each operation id is remembered: a retry is a replay, not another tap.
      const [retry] = await store.commit([tap('increment', 'b')]);
      expect(retry).toMatchObject({ ok: true, replayed: true });
      expect((await store.loadGroupState(group.id))?.counters[0]?.value).toBe(3);
    });

    it('keeps the order of effects when a value set comes between taps on the same counter', async () => {
      const group = await newGroup();
      const counter = await createCounter(group.id);
      const tap: Operation = {
        groupId: group.id,
        mutation: {
          kind: 'adjustCounter',
          counterId: counter.id,
          direction: 'increment',
          times: 1,
        },
      };
      const outcomes = await store.commit([
        tap,
        tap,
        {
          groupId: group.id,
          mutation: { kind: 'updateCounter', counterId: counter.id, patch: { value: 10 } },
        },
        tap,
      ]);
      expect(counterOf(outcomes[3] as OperationOutcome).value).toBe(11);
      const seqs = outcomes.flatMap((o) => (o.ok ? o.changes.map((c) => c.seq) : []));
      expect(seqs.sort((a, b) => a - b)).toEqual([2, 3, 4]);
      expect((await store.loadGroupState(group.id))?.counters[0]?.value).toBe(11);
    });

    it('applies taps one by one when together they would leave the range', async () => {
      const group = await newGroup();
      const counter = await createCounter(group.id, { value: MAX_VALUE - 2 });
      const tap: Operation = {
        groupId: group.id,
        mutation: {
          kind: 'adjustCounter',
          counterId: counter.id,
          direction: 'increment',
          times: 1,
        },
      };
      const outcomes = await store.commit([tap, tap, tap]);
      expect(outcomes.map((o) => o.ok)).toEqual([true, true, false]);
      expect(outcomes[2]).toMatchObject({ code: 'value_out_of_range' });
      expect((await store.loadGroupState(group.id))?.counters[0]?.value).toBe(MAX_VALUE);
    });

    it('answers a ping', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });

    it('commits a write probe (the health check) while storage takes writes', async () => {
      await expect(store.probeWrite()).resolves.toBeUndefined();
      await expect(store.probeWrite()).resolves.toBeUndefined();
    });

    it('refuses an operation id reused for another change, in a later batch or the same one', async () => {
      const group = await newGroup();
      const counter = await createCounter(group.id);
      const tap = (times: number): Mutation => ({
        kind: 'adjustCounter',
        counterId: counter.id,
        direction: 'increment',
        times,
      });
      expect(counterOf(await commitOne(group.id, tap(2), 'op-1')).value).toBe(2);
      const reused = { ok: false, code: 'operation_id_reused' };
      expect(await commitOne(group.id, tap(3), 'op-1')).toMatchObject(reused);
      expect(
        await commitOne(
          group.id,
          { kind: 'updateCounter', counterId: counter.id, patch: { value: 9 } },
          'op-1',
        ),
      ).toMatchObject(reused);
      // The same change again is a replay.
      expect(await commitOne(group.id, tap(2), 'op-1')).toMatchObject({ ok: true, replayed: true });
      const outcomes = await store.commit([
        { groupId: group.id, opId: 'op-2', mutation: tap(1) },
        { groupId: group.id, opId: 'op-2', mutation: tap(1) },
        { groupId: group.id, opId: 'op-2', mutation: tap(5) },
      ]);
      expect(outcomes.map((outcome) => (outcome.ok ? outcome.replayed : outcome.code))).toEqual([
        false,
        true,
        'operation_id_reused',
      ]);
      expect((await store.loadGroupState(group.id))?.counters[0]?.value).toBe(3);
    });

    it('undoes a typed value exactly across more than 2^53', async () => {
      const group = await newGroup();
      const counter = await createCounter(group.id, { value: -MAX_VALUE });
      const set = (value: number, opId: string) =>
        commitOne(
          group.id,
          { kind: 'updateCounter', counterId: counter.id, patch: { value } },
          opId,
        );
      expect(counterOf(await set(MAX_VALUE - 1, 'typed')).value).toBe(MAX_VALUE - 1);
      const undone = await commitOne(group.id, { kind: 'undoOperation', opId: 'typed' });
      expect(counterOf(undone).value).toBe(-MAX_VALUE);
    });

    if (factory.reopen) {
      const reopen = factory.reopen;
      it('keeps committed data after the store is closed and opened again', async () => {
        const group = await newGroup();
        const counter = await createCounter(group.id, { name: 'Durable' });
        await commitOne(group.id, {
          kind: 'adjustCounter',
          counterId: counter.id,
          direction: 'increment',
          times: 7,
        });
        await store.close();
        store = await reopen(store);
        const state = await store.loadGroupState(group.id);
        expect(state?.counters[0]).toMatchObject({ name: 'Durable', value: 7 });
      });
    }
  });
}
