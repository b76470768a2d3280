/**
 * The store contract of notes and counts for an earlier time (ADR 36), the same on every store.
 * Call describeNotesContract from a *.test.ts file with a factory that opens a migrated store on
 * the database named `place` (the same place opens the same database again: a restart) reading
 * the given clock (epoch ms) for every batch.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { hashKey } from '../../src/server/core/access.js';
import { ChainCheck } from '../../src/server/domain/log-chain.js';
import type { Operation, OperationOutcome, Store } from '../../src/server/store/types.js';
import type { ActivityEntry } from '../../src/shared/activity.js';
import type { Counter, Mutation } from '../../src/shared/api.js';

export type NotesStoreFactory = (clock: () => number, place: string) => Promise<Store>;

type Adjusted = Extract<ActivityEntry, { kind: 'counter.adjusted' }>;

let groupCount = 0;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export function describeNotesContract(label: string, openStore: NotesStoreFactory): void {
  describe(`${label}: notes and counts for an earlier time`, () => {
    // Three days before the real clock's run: history reads end at the real now.
    const start = Date.parse('2026-11-20T12:00:00Z');
    const clock = { now: start };
    const stores: Store[] = [];
    afterEach(async () => {
      await Promise.all(stores.splice(0).map((store) => store.close()));
      clock.now = start;
    });

    async function open(place: string): Promise<Store> {
      const store = await openStore(() => clock.now, place);
      stores.push(store);
      return store;
    }

    async function setUp(place = `notes-${label}-${++groupCount}-${Date.now()}`) {
      const store = await open(place);
      const { group } = await store.createGroup(place, hashKey('cd'.repeat(16)));
      return { store, group, place };
    }

    const commitOn = async (
      store: Store,
      groupId: string,
      mutation: Mutation | Operation['mutation'],
      actor = 'Ada',
    ): Promise<OperationOutcome> => {
      const [outcome] = await store.commit([{ groupId, mutation, actor }]);
      if (!outcome) throw new Error('no outcome');
      return outcome;
    };

    const counterOf = (outcome: OperationOutcome): Counter => {
      if (!outcome.ok || outcome.result.kind !== 'counter') {
        throw new Error(`not a counter: ${JSON.stringify(outcome)}`);
      }
      return outcome.result.counter;
    };

    const tap = (
      counterId: string,
      extra: { times?: number; note?: string; at?: number; direction?: 'increment' | 'decrement' },
    ): Mutation => ({
      kind: 'adjustCounter',
      counterId,
      direction: extra.direction ?? 'increment',
      times: extra.times ?? 1,
      ...(extra.note === undefined ? {} : { note: extra.note }),
      ...(extra.at === undefined ? {} : { at: extra.at }),
    });

    const adjusted = async (store: Store, groupId: string): Promise<Adjusted[]> =>
      (await store.listActivity(groupId, { limit: 200, order: 'newest' })).filter(
        (entry): entry is Adjusted => entry.kind === 'counter.adjusted',
      );

    it('a count for yesterday, after its daily period ended, corrects that period’s total and the all-time total, and stays corrected across a restart', async () => {
      const { store, group, place } = await setUp();
      const counter = counterOf(
        await commitOn(store, group.id, {
          kind: 'createCounter',
          fields: { name: 'Visitors', reset: 'daily' },
        }),
      );
      await commitOn(store, group.id, tap(counter.id, { times: 5 }));
      // The next day: the period of the 20th ends with 5.
      clock.now = start + DAY;
      await commitOn(store, group.id, tap(counter.id, { times: 2 }));
      expect(await store.counterPeriods(group.id, counter.id, 10)).toMatchObject([{ value: 5 }]);

      // Bob counts 3 more for the 20th at 18:00, forgotten then.
      const countedAt = Date.parse('2026-11-20T18:00:00Z');
      const corrected = counterOf(
        await commitOn(
          store,
          group.id,
          tap(counter.id, { times: 3, at: countedAt, note: 'late list' }),
          'Bob',
        ),
      );
      expect(corrected).toMatchObject({ value: 2, allTime: 10 });
      const [entry] = await adjusted(store, group.id);
      expect(entry).toMatchObject({
        actor: 'Bob',
        delta: 3,
        value: 2,
        note: 'late list',
        countedAt: '2026-11-20T18:00:00.000Z',
        at: new Date(clock.now).toISOString(),
        correctedPeriod: { start: '2026-11-20T00:00:00.000Z', end: '2026-11-21T00:00:00.000Z' },
      });

      await store.close();
      stores.splice(stores.indexOf(store), 1);
      const reopened = await open(place);
      expect(await reopened.counterPeriods(group.id, counter.id, 10)).toEqual([
        {
          counterId: counter.id,
          start: '2026-11-20T00:00:00.000Z',
          end: '2026-11-21T00:00:00.000Z',
          value: 8,
        },
      ]);
      const state = await reopened.loadGroupState(group.id);
      expect(state?.counters[0]).toMatchObject({ value: 2, allTime: 10 });

      // Undone like any change: at its time, so the period's total goes back.
      const undo = await commitOn(reopened, group.id, {
        kind: 'undoEntry',
        entryId: entry?.id ?? 0,
      });
      expect(counterOf(undo)).toMatchObject({ value: 2, allTime: 7 });
      expect(await reopened.counterPeriods(group.id, counter.id, 10)).toMatchObject([{ value: 5 }]);
      const [undoEntry] = await adjusted(reopened, group.id);
      expect(undoEntry).toMatchObject({ delta: -3, countedAt: '2026-11-20T18:00:00.000Z' });
    });

    it('a count for earlier today moves the value now, within the limits as they are now, and the chart places it at its time', async () => {
      const { store, group } = await setUp();
      const counter = counterOf(
        await commitOn(store, group.id, {
          kind: 'createCounter',
          fields: { name: 'Chairs', max: 10 },
        }),
      );
      clock.now = start + 4 * HOUR;
      await commitOn(store, group.id, tap(counter.id, { times: 8 }));
      clock.now = start + 6 * HOUR;
      const countedAt = start + 2 * HOUR;
      const refused = await commitOn(store, group.id, tap(counter.id, { times: 3, at: countedAt }));
      expect(refused).toMatchObject({ ok: false, code: 'limit_reached' });
      const applied = counterOf(
        await commitOn(store, group.id, tap(counter.id, { times: 2, at: countedAt })),
      );
      expect(applied).toMatchObject({ value: 10, allTime: 10 });
      const points = await store.counterHistory(group.id, counter.id, 1000);
      // At 2 h the value became 2; from 4 h on it was 10 (8 tapped then, and the 2).
      expect(points).toContainEqual({ t: countedAt, v: 2 });
      expect(points).toContainEqual({ t: start + 4 * HOUR, v: 10 });
    });

    it('refuses a time later than now, earlier than the log keeps or before the counter,', async () => {
      const { store, group } = await setUp();
      const counter = counterOf(
        await commitOn(store, group.id, { kind: 'createCounter', fields: { name: 'Laps' } }),
      );
      clock.now = start + HOUR;
      const at = async (time: number) => commitOn(store, group.id, tap(counter.id, { at: time }));
      expect(await at(clock.now + 1)).toEqual({
        ok: false,
        code: 'validation_failed',
        message: 'A count cannot be for a time later than now.',
      });
      expect(await at(start - 1)).toEqual({
        ok: false,
        code: 'validation_failed',
        message: 'A count cannot be for a time before the counter was created.',
      });
      // The window is what the log keeps (365 days by default): a year and a day back is refused
      // even for a counter that old.
      clock.now = start + 366 * DAY;
      expect(await at(start + 1)).toEqual({
        ok: false,
        code: 'validation_failed',
        message: 'A count can be for a time at most 365 days ago.',
      });
      expect(await at(start + 2 * DAY)).toMatchObject({ ok: true });
      const state = await store.loadGroupState(group.id);
      expect(state?.counters[0]?.value).toBe(1);
    });

    it('tallies since a time count a change at the time it was counted for, not when it was recorded', async () => {
      const { store, group } = await setUp();
      const counter = counterOf(
        await commitOn(store, group.id, { kind: 'createCounter', fields: { name: 'Tickets' } }),
      );
      const thisMorning = Date.parse('2026-11-21T06:00:00Z');
      const countFor = (actor: string, times: number, countedAt: string) =>
        commitOn(store, group.id, tap(counter.id, { times, at: Date.parse(countedAt) }), actor);
      // Today at 15:00: Ada enters 2 for yesterday evening, Bob 3 for this morning.
      clock.now = Date.parse('2026-11-21T15:00:00Z');
      await countFor('Ada', 2, '2026-11-20T18:00:00Z');
      await countFor('Bob', 3, '2026-11-21T08:00:00Z');
      // Tomorrow: Cara enters 4 for this morning, and Dan taps once.
      const tomorrow = Date.parse('2026-11-22T00:00:00Z');
      clock.now = Date.parse('2026-11-22T10:00:00Z');
      await countFor('Cara', 4, '2026-11-21T09:00:00Z');
      await commitOn(store, group.id, tap(counter.id, {}), 'Dan');

      const members = async (since: number, counterId?: string) =>
        (await store.tallies(group.id, { since, limit: 100, counterId }))
          .map((row) => `${row.member} ${row.net}`)
          .sort();
      for (const counterId of [undefined, counter.id]) {
        expect(await members(thisMorning, counterId)).toEqual(['Bob 3', 'Cara 4', 'Dan 1']);
        expect(await members(tomorrow, counterId)).toEqual(['Dan 1']);
        expect(await members(start, counterId)).toEqual(['Ada 2', 'Bob 3', 'Cara 4', 'Dan 1']);
      }
    });

    it('lists as noted the entries with a note or an earlier time, a note added afterwards too, and no longer one whose note is removed', async () => {
      const { store, group } = await setUp();
      const counter = counterOf(
        await commitOn(store, group.id, { kind: 'createCounter', fields: { name: 'Bins' } }),
      );
      clock.now = start + HOUR;
      await commitOn(store, group.id, tap(counter.id, { note: 'full' }));
      await commitOn(store, group.id, tap(counter.id, {}));
      await commitOn(store, group.id, tap(counter.id, { at: start + 1 }));
      const [backDated, plain, noted] = await adjusted(store, group.id);
      const notedIds = async (counterId?: string) =>
        (
          await store.listActivity(group.id, { limit: 10, order: 'newest', noted: true, counterId })
        ).map((entry) => entry.id);
      expect(await notedIds()).toEqual([backDated?.id, noted?.id]);
      expect(await notedIds(counter.id)).toEqual([backDated?.id, noted?.id]);
      await store.setEntryNote(group.id, plain?.id ?? 0, 'emptied');
      await store.setEntryNote(group.id, noted?.id ?? 0, null);
      expect(await notedIds(counter.id)).toEqual([backDated?.id, plain?.id]);
      expect(await notedIds('no-such-counter')).toEqual([]);
    });

    it('keeps a plain tap as it was, and notes out of the hash chain: the chain holds after a note is changed', async () => {
      const { store, group } = await setUp();
      const counter = counterOf(
        await commitOn(store, group.id, { kind: 'createCounter', fields: { name: 'Refunds' } }),
      );
      await commitOn(store, group.id, tap(counter.id, { times: 2 }));
      await commitOn(store, group.id, tap(counter.id, { direction: 'decrement', note: 'refund' }));
      const [noted, plain] = await adjusted(store, group.id);
      expect(noted).toMatchObject({ delta: -1, note: 'refund' });
      expect(noted).not.toHaveProperty('countedAt');
      expect(plain).not.toHaveProperty('note');
      expect(plain).not.toHaveProperty('countedAt');

      const edited = await store.setEntryNote(group.id, noted?.id ?? 0, 'refund, table 4');
      expect(edited).toMatchObject({ id: noted?.id, note: 'refund, table 4' });
      expect(await store.setEntryNote(group.id, plain?.id ?? 0, null)).not.toHaveProperty('note');
      expect(await store.activityEntry(group.id, noted?.id ?? 0)).toMatchObject({
        note: 'refund, table 4',
      });
      const ends = await store.activityChainEnds(group.id);
      const check = new ChainCheck(group.id, ends?.anchor ?? null);
      check.add(await store.activityChain(group.id, 0, 1000));
      expect(check.verdict(ends?.head ?? null)).toEqual({ ok: true, checked: 3 });
    });
  });
}
