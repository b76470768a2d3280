/**
 * Numbered operation ids (`<session>.<n>`, ADR 24), as every Store implementation must keep
 * them: a numbered tap is remembered in its session's window, one row per group and session,
 * and is still applied exactly once, in any order within the window, across batches and restarts.
 * Call describeNumberedIdsContract from a *.test.ts file with a factory for fresh stores.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashKey } from '../../src/server/core/access.js';
import type { Operation, OperationOutcome, Store } from '../../src/server/store/types.js';
import type { Counter, Mutation } from '../../src/shared/api.js';
import { OPERATION_SESSION_WINDOW } from '../../src/shared/limits.js';
import { numberedId } from '../../src/shared/operation-ids.js';
import type { StoreFactory } from './store.suite.js';

let nameCounter = 0;
const uniqueName = () => `numbered-${Date.now()}-${++nameCounter}`;
const SESSION = 'tab7Kq2xWm';

export function describeNumberedIdsContract(label: string, factory: StoreFactory): void {
  describe(`${label}: numbered operation ids`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await factory.create();
    });
    afterEach(async () => {
      await store.close();
    });

    async function groupWithCounter(fields: { max?: number } = {}) {
      const { group } = await store.createGroup(uniqueName(), hashKey('ef'.repeat(16)));
      const [created] = await store.commit([
        { groupId: group.id, mutation: { kind: 'createCounter', fields } },
      ]);
      if (!created?.ok || created.result.kind !== 'counter') throw new Error('no counter');
      return { groupId: group.id, counter: created.result.counter };
    }

    const tap = (groupId: string, counter: Counter, n: number, session = SESSION): Operation => ({
      groupId,
      opId: numberedId(session, n),
      actor: 'Ada',
      mutation: { kind: 'adjustCounter', counterId: counter.id, direction: 'increment', times: 1 },
    });

    const valueOf = async (groupId: string) =>
      (await store.loadGroupState(groupId))?.counters[0]?.value;
    const replays = (outcomes: OperationOutcome[]) => outcomes.map((o) => o.ok && o.replayed);

    it('applies a numbered tap once: a retry in a later batch is answered with the counter as it is now', async () => {
      const { groupId, counter } = await groupWithCounter();
      const [first] = await store.commit([tap(groupId, counter, 1)]);
      expect(first).toMatchObject({ ok: true, replayed: false });
      await store.commit([tap(groupId, counter, 2)]);
      const [retry] = await store.commit([tap(groupId, counter, 1)]);
      expect(retry).toMatchObject({
        ok: true,
        replayed: true,
        changes: [],
        result: { kind: 'counter', counter: { id: counter.id, value: 2 } },
      });
      expect(await valueOf(groupId)).toBe(2);
    });

    it('applies numbers arriving out of order within the window once each, and their retries none', async () => {
      const { groupId, counter } = await groupWithCounter();
      const far = OPERATION_SESSION_WINDOW - 1;
      // A gap, then numbers filling it in later batches (a refusal retried, another lane first).
      await store.commit([tap(groupId, counter, far)]);
      await store.commit([tap(groupId, counter, 3), tap(groupId, counter, 1)]);
      await store.commit([tap(groupId, counter, 2)]);
      expect(await valueOf(groupId)).toBe(4);
      const again = await store.commit([1, 2, 3, far].map((n) => tap(groupId, counter, n)));
      expect(replays(again)).toEqual([true, true, true, true]);
      // A number never sent is still new, even below the newest.
      const [gap] = await store.commit([tap(groupId, counter, 4)]);
      expect(gap).toMatchObject({ ok: true, replayed: false });
      expect(await valueOf(groupId)).toBe(5);
    });

    it('refuses a number a whole window behind its session newest with operation_expired, never applying it', async () => {
      const { groupId, counter } = await groupWithCounter();
      await store.commit([tap(groupId, counter, 1)]);
      await store.commit([tap(groupId, counter, 1 + OPERATION_SESSION_WINDOW)]);
      const [old, unsent] = await store.commit([
        tap(groupId, counter, 1),
        tap(groupId, counter, 2),
      ]);
      expect(old).toMatchObject({ ok: false, code: 'operation_expired' });
      // The window holds the newest number and the WINDOW − 1 below it: 2 is still told apart.
      expect(unsent).toMatchObject({ ok: true, replayed: false });
      const [ahead] = await store.commit([tap(groupId, counter, 3 + OPERATION_SESSION_WINDOW)]);
      expect(ahead).toMatchObject({ ok: true, replayed: false });
      const [late] = await store.commit([tap(groupId, counter, 3)]);
      // Number 3 was never applied, but it is now as far behind: it cannot be told apart.
      expect(late).toMatchObject({ ok: false, code: 'operation_expired' });
      expect(await valueOf(groupId)).toBe(4);
    });

    it('does not remember a refused numbered tap: its retry is checked again', async () => {
      const { groupId, counter } = await groupWithCounter({ max: 1 });
      await store.commit([tap(groupId, counter, 1)]);
      const [refused] = await store.commit([tap(groupId, counter, 2)]);
      expect(refused).toMatchObject({ ok: false, code: 'limit_reached' });
      await store.commit([
        { groupId, mutation: { kind: 'updateCounter', counterId: counter.id, patch: { max: 5 } } },
      ]);
      const [retry] = await store.commit([tap(groupId, counter, 2)]);
      expect(retry).toMatchObject({ ok: true, replayed: false });
      expect(await valueOf(groupId)).toBe(2);
    });

    it('keeps one window per group and session: the same numbers elsewhere are other operations', async () => {
      const a = await groupWithCounter();
      const b = await groupWithCounter();
      await store.commit([tap(a.groupId, a.counter, 1)]);
      const outcomes = await store.commit([
        tap(b.groupId, b.counter, 1),
        tap(a.groupId, a.counter, 1, 'otherTab99'),
        tap(a.groupId, a.counter, 1),
      ]);
      expect(replays(outcomes)).toEqual([false, false, true]);
      expect(await valueOf(a.groupId)).toBe(2);
      expect(await valueOf(b.groupId)).toBe(1);
    });

    it('answers a number used twice in one batch once, the second as a replay', async () => {
      const { groupId, counter } = await groupWithCounter();
      const outcomes = await store.commit([tap(groupId, counter, 1), tap(groupId, counter, 1)]);
      expect(replays(outcomes)).toEqual([false, true]);
      expect(await valueOf(groupId)).toBe(1);
    });

    it('remembers every other change with a numbered id as its own: a retried create answers its first counter', async () => {
      const { group } = await store.createGroup(uniqueName(), hashKey('ef'.repeat(16)));
      const create: Operation = {
        groupId: group.id,
        opId: numberedId(SESSION, 1),
        mutation: { kind: 'createCounter', fields: { name: 'Once' } },
      };
      const [first] = await store.commit([create]);
      const [again] = await store.commit([create]);
      expect(again).toMatchObject({ ok: true, replayed: true });
      expect(again?.ok && again.result).toEqual(first?.ok && first.result);
      expect((await store.loadGroupState(group.id))?.counters).toHaveLength(1);
    });

    it('undoes a numbered tap by its activity entry; by its id it is refused with a clear error', async () => {
      const { groupId, counter } = await groupWithCounter();
      await store.commit([tap(groupId, counter, 1)]);
      const undoById: Mutation = { kind: 'undoOperation', opId: numberedId(SESSION, 1) };
      const [byId] = await store.commit([{ groupId, mutation: undoById }]);
      expect(byId).toMatchObject({ ok: false, code: 'cannot_undo' });
      const [unknown] = await store.commit([
        { groupId, mutation: { kind: 'undoOperation', opId: numberedId(SESSION, 9) } },
      ]);
      expect(unknown).toMatchObject({ ok: false, code: 'activity_not_found' });
      const [entry] = await store.listActivity(groupId, {
        limit: 1,
        order: 'newest',
        counterId: counter.id,
      });
      expect(entry).toMatchObject({ kind: 'counter.adjusted', delta: 1 });
      const [undone] = await store.commit([
        { groupId, mutation: { kind: 'undoEntry', entryId: entry?.id ?? 0 } },
      ]);
      expect(undone).toMatchObject({ ok: true });
      expect(await valueOf(groupId)).toBe(0);
    });

    it('forgets sessions unused for longer than the age, and keeps fresh ones', async () => {
      const { groupId, counter } = await groupWithCounter();
      await store.commit([tap(groupId, counter, 1, 'staleTab01')]);
      const staleBy = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      await store.commit([tap(groupId, counter, 1)]);
      // The cutoff falls 100 ms after the stale session's tap, 900 ms before the fresh one's.
      expect(await store.pruneOperationIds(Date.now() - (staleBy + 100))).toBe(1);
      const outcomes = await store.commit([
        tap(groupId, counter, 1, 'staleTab01'),
        tap(groupId, counter, 1),
      ]);
      // Forgotten like an opaque id past its 24 hours: applied again.
      expect(replays(outcomes)).toEqual([false, true]);
    });

    if (factory.reopen) {
      const reopen = factory.reopen;
      it('keeps a session window across a restart', async () => {
        const { groupId, counter } = await groupWithCounter();
        await store.commit([tap(groupId, counter, 1), tap(groupId, counter, 3)]);
        await store.close();
        store = await reopen(store);
        const outcomes = await store.commit([1, 2, 3].map((n) => tap(groupId, counter, n)));
        expect(replays(outcomes)).toEqual([true, false, true]);
        expect(await valueOf(groupId)).toBe(3);
      });
    }
  });
}
