/**
 * The activity log contract (ADR 7): what every Store writes to the log in the transaction of
 * a change, how undo applies inverse operations, and the history reads. Run on SQLite and
 * PostgreSQL by calling describeActivityContract from each store's test file.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashKey } from '../../src/server/core/access.js';
import type { Operation, OperationOutcome, Store } from '../../src/server/store/types.js';
import type { ActivityEntry } from '../../src/shared/activity.js';
import { ActivityEntrySchema } from '../../src/shared/activity.js';
import type { Counter, Mutation } from '../../src/shared/api.js';
import { MAX_VALUE } from '../../src/shared/limits.js';

let nameCounter = 0;
const uniqueName = () => `activity-test-${Date.now()}-${++nameCounter}`;

export function describeActivityContract(label: string, create: () => Promise<Store>): void {
  describe(`${label} activity log`, () => {
    let store: Store;
    let groupId: string;
    beforeEach(async () => {
      store = await create();
      groupId = (await store.createGroup(uniqueName(), hashKey('ab'.repeat(16)))).group.id;
    });
    afterEach(async () => {
      await store.close();
    });

    const op = (mutation: Mutation, actor = 'Ada', opId?: string): Operation => ({
      groupId,
      mutation,
      actor,
      opId,
    });

    async function commitOne(
      mutation: Mutation,
      actor = 'Ada',
      opId?: string,
    ): Promise<OperationOutcome> {
      const [outcome] = await store.commit([op(mutation, actor, opId)]);
      if (!outcome) throw new Error('no outcome');
      return outcome;
    }

    async function createCounter(
      fields: Extract<Mutation, { kind: 'createCounter' }>['fields'] = {},
    ): Promise<Counter> {
      const outcome = await commitOne({ kind: 'createCounter', fields });
      if (!outcome.ok || outcome.result.kind !== 'counter') throw new Error('create failed');
      return outcome.result.counter;
    }

    const tap = (
      counterId: string,
      actor = 'Ada',
      direction: 'increment' | 'decrement' = 'increment',
      opId?: string,
    ): Operation => op({ kind: 'adjustCounter', counterId, direction, times: 1 }, actor, opId);

    async function newest(limit = 50): Promise<ActivityEntry[]> {
      const entries = await store.listActivity(groupId, { limit, order: 'newest' });
      for (const entry of entries) ActivityEntrySchema.parse(entry);
      return entries;
    }

    async function valueOf(counterId: string): Promise<number | undefined> {
      const state = await store.loadGroupState(groupId);
      return state?.counters.find((counter) => counter.id === counterId)?.value;
    }

    const errorCode = (outcome: OperationOutcome | undefined) =>
      outcome && !outcome.ok ? outcome.code : 'ok';

    it('records every kind of change with who, what and the change number', async () => {
      const counter = await createCounter({ name: 'Coffees' });
      await commitOne(
        { kind: 'adjustCounter', counterId: counter.id, direction: 'increment', times: 2 },
        'Bob',
      );
      await commitOne(
        { kind: 'updateCounter', counterId: counter.id, patch: { name: 'Teas' } },
        'Cy',
      );
      await commitOne({ kind: 'updateGroup', patch: { displayName: 'Office' } }, 'Di');
      await commitOne({ kind: 'deleteCounter', counterId: counter.id }, 'Ed');

      const entries = await newest();
      expect(entries.map((entry) => [entry.kind, entry.actor])).toEqual([
        ['counter.deleted', 'Ed'],
        ['group.updated', 'Di'],
        ['counter.updated', 'Cy'],
        ['counter.adjusted', 'Bob'],
        ['counter.created', 'Ada'],
      ]);
      const seqs = entries.map((entry) => entry.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => b - a));
      const [deleted, group, renamed, adjusted, created] = entries;
      expect(created).toMatchObject({ counterId: counter.id, counterName: 'Coffees', value: 0 });
      expect(adjusted).toMatchObject({ kind: 'counter.adjusted', delta: 2, value: 2 });
      expect(renamed).toMatchObject({
        kind: 'counter.updated',
        counterName: 'Coffees',
        changes: [{ field: 'name', from: 'Coffees', to: 'Teas' }],
      });
      expect(group).toMatchObject({
        kind: 'group.updated',
        counterId: null,
        changes: [{ field: 'displayName', to: 'Office' }],
      });
      expect(deleted).toMatchObject({
        kind: 'counter.deleted',
        counterName: 'Teas',
        counter: { id: counter.id, name: 'Teas', value: 2 },
      });
      expect(Date.parse(deleted?.at ?? '')).toBeGreaterThan(Date.now() - 60_000);
    });

    it('records the taps of one member on one counter in one commit as one entry', async () => {
      const counter = await createCounter({ incrementStep: 5, decrementStep: 2 });
      const outcomes = await store.commit([
        tap(counter.id, 'Ada'),
        tap(counter.id, 'Bob'),
        tap(counter.id, 'Ada'),
        tap(counter.id, 'Ada', 'decrement'),
        tap(counter.id, 'Bob'),
        tap(counter.id, 'Ada'),
      ]);
      expect(outcomes.every((outcome) => outcome.ok)).toBe(true);
      const byActor = Object.fromEntries(
        (await newest()).flatMap((entry) =>
          entry.kind === 'counter.adjusted' ? [[entry.actor, entry.delta]] : [],
        ),
      );
      expect(byActor).toEqual({ Ada: 3 * 5 - 2, Bob: 2 * 5 });
      expect(await valueOf(counter.id)).toBe(23);
    });

    it('writes no entry for a refused change or a retried operation id', async () => {
      const counter = await createCounter({ value: MAX_VALUE });
      const before = (await newest()).length;
      expect(
        errorCode(
          await commitOne({
            kind: 'adjustCounter',
            counterId: counter.id,
            direction: 'increment',
            times: 1,
          }),
        ),
      ).toBe('value_out_of_range');
      const set = { kind: 'updateCounter', counterId: counter.id, patch: { value: 1 } } as const;
      await commitOne(set, 'Ada', 'op-set-1');
      await commitOne(set, 'Ada', 'op-set-1');
      expect((await newest()).length).toBe(before + 1);
    });

    it('pages newest first with before, and catches up with after', async () => {
      const counter = await createCounter();
      for (let i = 0; i < 6; i += 1) await store.commit([tap(counter.id)]);
      const all = await newest();
      expect(all).toHaveLength(7);
      const firstPage = await store.listActivity(groupId, { limit: 3, order: 'newest' });
      const secondPage = await store.listActivity(groupId, {
        limit: 3,
        order: 'newest',
        before: firstPage[2]?.id,
      });
      expect([...firstPage, ...secondPage].map((entry) => entry.id)).toEqual(
        all.slice(0, 6).map((entry) => entry.id),
      );
      const newer = await store.listActivity(groupId, {
        limit: 50,
        order: 'oldest',
        after: all[2]?.id,
      });
      expect(newer.map((entry) => entry.id)).toEqual([all[1]?.id, all[0]?.id]);
      const onCounter = await store.listActivity(groupId, {
        limit: 50,
        order: 'newest',
        counterId: counter.id,
      });
      expect(onCounter).toHaveLength(7);
    });

    it("pages one counter's entries with before and after, among another counter's", async () => {
      const counter = await createCounter();
      const other = await createCounter();
      for (let i = 0; i < 5; i += 1) await store.commit([tap(counter.id), tap(other.id, 'Bob')]);
      const page = (query: { before?: number; after?: number; order: 'newest' | 'oldest' }) =>
        store
          .listActivity(groupId, { limit: 2, counterId: counter.id, ...query })
          .then((entries) => entries.map((entry) => entry.id));
      const all = (
        await store.listActivity(groupId, { limit: 50, counterId: counter.id, order: 'oldest' })
      ).map((entry) => entry.id);
      expect(all).toHaveLength(6);
      expect([...all].sort((a, b) => a - b)).toEqual(all);

      const newestFirst: number[] = [];
      let before: number | undefined;
      for (;;) {
        const ids = await page({ order: 'newest', ...(before === undefined ? {} : { before }) });
        if (ids.length === 0) break;
        newestFirst.push(...ids);
        before = ids[ids.length - 1];
      }
      expect(newestFirst).toEqual([...all].reverse());
      expect(await page({ order: 'oldest', after: all[3] ?? 0 })).toEqual(all.slice(4));
      // Cursors that name no entry of this counter (the other counter's, or past either end).
      const otherIds = (
        await store.listActivity(groupId, { limit: 50, counterId: other.id, order: 'oldest' })
      ).map((entry) => entry.id);
      const between = otherIds[2] ?? 0;
      expect(await page({ order: 'newest', before: between })).toEqual(
        all
          .filter((id) => id < between)
          .reverse()
          .slice(0, 2),
      );
      expect(await page({ order: 'oldest', after: between })).toEqual(
        all.filter((id) => id > between).slice(0, 2),
      );
      expect(await page({ order: 'newest', before: 1 })).toEqual([]);
      expect(await page({ order: 'oldest', after: Number.MAX_SAFE_INTEGER })).toEqual([]);
    });

    it('keeps each group to its own log', async () => {
      const counter = await createCounter();
      await store.commit([tap(counter.id)]);
      const other = (await store.createGroup(uniqueName(), hashKey('cd'.repeat(16)))).group.id;
      expect(await store.listActivity(other, { limit: 50, order: 'newest' })).toEqual([]);
      const [entry] = await newest(1);
      const [undo] = await store.commit([
        { groupId: other, mutation: { kind: 'undoEntry', entryId: entry?.id ?? 0 }, actor: 'Eve' },
      ]);
      expect(errorCode(undo)).toBe('activity_not_found');
      expect(await valueOf(counter.id)).toBe(1);
    });

    it('undoes taps by the opposite amount, keeping what others did meanwhile', async () => {
      const counter = await createCounter({ incrementStep: 5 });
      await store.commit([tap(counter.id, 'Ada')]);
      const [adaTap] = await newest(1);
      await store.commit([tap(counter.id, 'Bob'), tap(counter.id, 'Bob')]);
      const undo = await commitOne({ kind: 'undoEntry', entryId: adaTap?.id ?? 0 }, 'Ada');
      expect(undo.ok).toBe(true);
      expect(await valueOf(counter.id)).toBe(10);
      const [undoEntry] = await newest(1);
      expect(undoEntry).toMatchObject({
        kind: 'counter.adjusted',
        delta: -5,
        undoOf: adaTap?.id,
        actor: 'Ada',
      });
      const original = (await newest()).find((entry) => entry.id === adaTap?.id);
      expect(original?.undoneBy).toBe(undoEntry?.id);
      expect(errorCode(await commitOne({ kind: 'undoEntry', entryId: adaTap?.id ?? 0 }))).toBe(
        'already_undone',
      );
      expect(await valueOf(counter.id)).toBe(10);
    });

    it('undoes a typed value by the difference, so concurrent taps still count', async () => {
      const counter = await createCounter({ value: 3 });
      await commitOne({ kind: 'updateCounter', counterId: counter.id, patch: { value: 10 } });
      const [set] = await newest(1);
      await store.commit([tap(counter.id, 'Bob'), tap(counter.id, 'Bob')]);
      await commitOne({ kind: 'undoEntry', entryId: set?.id ?? 0 });
      expect(await valueOf(counter.id)).toBe(3 + 2);
    });

    it('undoes a rename and step change by setting the fields back', async () => {
      const counter = await createCounter({ name: 'Coffees' });
      await commitOne({
        kind: 'updateCounter',
        counterId: counter.id,
        patch: { name: 'Teas', incrementStep: 4 },
      });
      const [edit] = await newest(1);
      const undo = await commitOne({ kind: 'undoEntry', entryId: edit?.id ?? 0 });
      expect(undo.ok && undo.result.kind === 'counter' && undo.result.counter).toMatchObject({
        name: 'Coffees',
        incrementStep: 1,
        value: 0,
      });
    });

    it('undoes a delete by restoring the counter with its value, and a create by deleting it', async () => {
      const counter = await createCounter({ name: 'Laps', value: 41 });
      await store.commit([tap(counter.id)]);
      await commitOne({ kind: 'deleteCounter', counterId: counter.id }, 'Bob');
      const [deleted] = await newest(1);
      const undo = await commitOne({ kind: 'undoEntry', entryId: deleted?.id ?? 0 }, 'Cy');
      expect(undo.ok && undo.changes[0]?.type).toBe('counter.created');
      const state = await store.loadGroupState(groupId);
      expect(state?.counters).toEqual([
        expect.objectContaining({
          id: counter.id,
          name: 'Laps',
          value: 42,
          createdAt: counter.createdAt,
        }),
      ]);
      const created = (await newest()).find(
        (entry) => entry.kind === 'counter.created' && entry.undoOf === null,
      );
      await commitOne({ kind: 'undoEntry', entryId: created?.id ?? 0 });
      expect((await store.loadGroupState(groupId))?.counters).toEqual([]);
    });

    it('undoes a group change by setting the name and picture back', async () => {
      await commitOne({
        kind: 'updateGroup',
        patch: { displayName: 'Office', profileImageUrl: 'https://example.com/a.png' },
      });
      const [edit] = await newest(1);
      const undo = await commitOne({ kind: 'undoEntry', entryId: edit?.id ?? 0 });
      expect(undo.ok && undo.result.kind === 'group' && undo.result.group).toMatchObject({
        profileImageUrl: null,
      });
      const state = await store.loadGroupState(groupId);
      expect(state?.group.displayName).toBe(state?.group.name);
    });

    it('undoes the change an operation id made', async () => {
      const counter = await createCounter();
      await store.commit([tap(counter.id, 'Ada', 'increment', 'tap-1'), tap(counter.id, 'Bob')]);
      const undo = await commitOne({ kind: 'undoOperation', opId: 'tap-1' }, 'Ada');
      expect(undo.ok).toBe(true);
      expect(await valueOf(counter.id)).toBe(1);
      expect(errorCode(await commitOne({ kind: 'undoOperation', opId: 'tap-1' }))).toBe(
        'already_undone',
      );
      expect(errorCode(await commitOne({ kind: 'undoOperation', opId: 'never-sent' }))).toBe(
        'activity_not_found',
      );
    });

    it('undoes a tap sent in the same batch as its undo (an offline queue sent at once)', async () => {
      const counter = await createCounter();
      const outcomes = await store.commit([
        tap(counter.id, 'Ada', 'increment', 'queued-1'),
        // Another member's tap: one member's taps of one batch share an entry (ADR 7).
        tap(counter.id, 'Bob', 'increment', 'queued-2'),
        op({ kind: 'undoOperation', opId: 'queued-2' }, 'Bob', 'queued-3'),
      ]);
      expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, true, true]);
      expect(await valueOf(counter.id)).toBe(1);
    });

    it('applies only one of two undos of the same entry in one commit', async () => {
      const counter = await createCounter();
      await store.commit([tap(counter.id)]);
      const [entry] = await newest(1);
      const undo = { kind: 'undoEntry', entryId: entry?.id ?? 0 } as const;
      const outcomes = await store.commit([
        op(undo, 'Ada'),
        tap(counter.id, 'Bob'),
        op(undo, 'Bob'),
      ]);
      expect(outcomes.map(errorCode)).toEqual(['ok', 'ok', 'already_undone']);
      expect(await valueOf(counter.id)).toBe(1);
    });

    // The cases below once behaved differently on the two stores (same-batch undo, double undo
    // in one batch): both now run domain/commit.ts, and these keep it so.
    it('applies only one of two undos by operation id of a tap made in the same batch', async () => {
      const counter = await createCounter();
      const outcomes = await store.commit([
        tap(counter.id, 'Ada', 'increment', 'same-1'),
        op({ kind: 'undoOperation', opId: 'same-1' }, 'Ada', 'undo-a'),
        op({ kind: 'undoOperation', opId: 'same-1' }, 'Ada', 'undo-b'),
      ]);
      expect(outcomes.map(errorCode)).toEqual(['ok', 'ok', 'already_undone']);
      expect(await valueOf(counter.id)).toBe(0);
      const [undo, tapped] = await newest(2);
      expect(tapped?.kind).toBe('counter.adjusted');
      expect(undo?.undoOf).toBe(tapped?.id);
      expect(tapped?.undoneBy).toBe(undo?.id);
    });

    it('brings back a counter deleted earlier in the same batch, and taps after it count', async () => {
      const counter = await createCounter({ name: 'Laps', value: 7 });
      const outcomes = await store.commit([
        op({ kind: 'deleteCounter', counterId: counter.id }, 'Ada', 'del-1'),
        op({ kind: 'undoOperation', opId: 'del-1' }, 'Ada', 'undo-del-1'),
        tap(counter.id, 'Bob'),
      ]);
      expect(outcomes.map(errorCode)).toEqual(['ok', 'ok', 'ok']);
      const state = await store.loadGroupState(groupId);
      expect(state?.counters.map((c) => [c.id, c.name, c.value])).toEqual([
        [counter.id, 'Laps', 8],
      ]);
      const [deleted] = (await newest()).filter((entry) => entry.kind === 'counter.deleted');
      expect(deleted?.undoneBy).not.toBeNull();
    });

    it('leaves no counter when one is created and undone in the same batch', async () => {
      const outcomes = await store.commit([
        op({ kind: 'createCounter', fields: { name: 'Oops' } }, 'Ada', 'create-1'),
        op({ kind: 'undoOperation', opId: 'create-1' }, 'Ada', 'undo-create-1'),
      ]);
      expect(outcomes.map(errorCode)).toEqual(['ok', 'ok']);
      expect((await store.loadGroupState(groupId))?.counters).toEqual([]);
      expect((await newest()).map((entry) => entry.kind)).toEqual([
        'counter.deleted',
        'counter.created',
      ]);
    });

    it('ends at the sum of the operations not undone when undos race with taps', async () => {
      const counter = await createCounter();
      await store.commit(Array.from({ length: 10 }, (_, i) => tap(counter.id, `M${i}`)));
      const targets = (await newest())
        .filter((entry) => entry.kind === 'counter.adjusted')
        .slice(0, 4);
      const batch: Operation[] = [];
      targets.forEach((entry, i) => {
        batch.push(tap(counter.id, 'Racer'), tap(counter.id, `R${i}`, 'decrement'));
        batch.push(op({ kind: 'undoEntry', entryId: entry.id }, 'Undoer'));
      });
      const outcomes = await store.commit(batch);
      expect(outcomes.every((outcome) => outcome.ok)).toBe(true);
      // 10 taps, 4 of them undone; +4 and −4 in the race.
      expect(await valueOf(counter.id)).toBe(10 - 4 + 4 - 4);
    });

    it('refuses an undo that would leave the value range, changing nothing', async () => {
      const counter = await createCounter({ value: MAX_VALUE - 1 });
      await commitOne({ kind: 'updateCounter', counterId: counter.id, patch: { value: 0 } });
      const [set] = await newest(1);
      await store.commit([tap(counter.id), tap(counter.id)]);
      expect(errorCode(await commitOne({ kind: 'undoEntry', entryId: set?.id ?? 0 }))).toBe(
        'value_out_of_range',
      );
      expect(await valueOf(counter.id)).toBe(2);
      expect((await newest()).find((entry) => entry.id === set?.id)?.undoneBy).toBeNull();
    });

    it('answers counter_not_found when undoing a tap on a deleted counter', async () => {
      const counter = await createCounter();
      await store.commit([tap(counter.id)]);
      const [entry] = await newest(1);
      await commitOne({ kind: 'deleteCounter', counterId: counter.id });
      expect(errorCode(await commitOne({ kind: 'undoEntry', entryId: entry?.id ?? 0 }))).toBe(
        'counter_not_found',
      );
    });

    it('reads a counter history ending at the current value, and recent values per counter', async () => {
      const counter = await createCounter();
      const quiet = await createCounter();
      for (let i = 0; i < 5; i += 1) await store.commit([tap(counter.id)]);
      const history = await store.counterHistory(groupId, counter.id, 100);
      // The first value, then each time bucket's last value (a bucket is ~1 ms here), then now.
      const values = history?.map((point) => point.v) ?? [];
      expect(values[0]).toBe(0);
      expect(values).toEqual([...values].sort((a, b) => a - b));
      expect(new Set(values.slice(0, -1)).size).toBe(values.length - 1);
      expect(history?.at(-1)?.v).toBe(5);
      const times = history?.map((point) => point.t) ?? [];
      expect(times).toEqual([...times].sort((a, b) => a - b));
      const coarse = await store.counterHistory(groupId, counter.id, 3);
      expect(coarse?.length).toBeLessThanOrEqual(3);
      expect(coarse?.[0]?.v).toBe(0);
      expect(coarse?.at(-1)?.v).toBe(5);
      expect(await store.counterHistory(groupId, 'no-such-counter', 10)).toBeNull();

      const recent = await store.recentValues(groupId, 3);
      expect(recent[counter.id]?.map((point) => point.v)).toEqual([3, 4, 5]);
      expect(recent[quiet.id]?.map((point) => point.v)).toEqual([0]);
    });

    it('prunes entries older than the retention age', async () => {
      const counter = await createCounter();
      await store.commit([tap(counter.id)]);
      expect(await store.pruneActivity(60_000)).toBe(0);
      expect(await newest()).toHaveLength(2);
      // A negative age puts the cut-off in the future: everything so far is older.
      expect(await store.pruneActivity(-60_000)).toBe(2);
      expect(await newest()).toEqual([]);
    });
  });
}
