/**
 * The store contract of counters with a purpose (ADR 19): goals, limits, periods, order, sections
 * and tallies behave the same on every store. Call describePurposeContract from a *.test.ts file
 * with a factory for fresh, migrated stores that read the given clock (epoch ms) for every batch.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { hashKey } from '../../src/server/core/access.js';
import { PeriodEnds } from '../../src/server/core/period-ends.js';
import type { Operation, OperationOutcome, Store } from '../../src/server/store/types.js';
import type { ActivityEntry } from '../../src/shared/activity.js';
import type { Counter, Mutation } from '../../src/shared/api.js';
import type { Change } from '../../src/shared/protocol.js';

/** A clock the test moves by hand. */
export interface TestClock {
  now: number;
}

export type PurposeStoreFactory = (clock: () => number) => Promise<Store>;

let nameCounter = 0;
const uniqueName = () => `purpose-${Date.now()}-${++nameCounter}`;

export function describePurposeContract(label: string, createStore: PurposeStoreFactory): void {
  describe(`${label}: goals, limits, periods, order, sections and tallies`, () => {
    const clock: TestClock = { now: Date.parse('2026-11-23T12:00:00Z') };
    const stores: Store[] = [];
    afterEach(async () => {
      await Promise.all(stores.splice(0).map((store) => store.close()));
      clock.now = Date.parse('2026-11-23T12:00:00Z');
    });

    async function open(): Promise<Store> {
      const store = await createStore(() => clock.now);
      stores.push(store);
      return store;
    }

    async function setUp() {
      const store = await open();
      const { group } = await store.createGroup(uniqueName(), hashKey('ab'.repeat(16)));
      const commit = async (mutation: Mutation | Operation['mutation'], actor?: string) => {
        const [outcome] = await store.commit([{ groupId: group.id, mutation, actor }]);
        if (!outcome) throw new Error('no outcome');
        return outcome;
      };
      const create = async (fields: Extract<Mutation, { kind: 'createCounter' }>['fields']) =>
        counterOf(await commit({ kind: 'createCounter', fields }));
      const state = async () => {
        const loaded = await store.loadGroupState(group.id);
        if (!loaded) throw new Error('group gone');
        return loaded;
      };
      const log = async () => store.listActivity(group.id, { limit: 200, order: 'newest' });
      return { store, group, commit, create, state, log };
    }

    const tap = (counterId: string, direction: 'increment' | 'decrement', times = 1): Mutation => ({
      kind: 'adjustCounter',
      counterId,
      direction,
      times,
    });

    describe('limits', () => {
      it('stops 200 taps coalesced in one batch exactly at the maximum, refusing each tap past it', async () => {
        const { store, group, create, state } = await setUp();
        const counter = await create({ name: 'Room', max: 100 });
        const outcomes = await store.commit(
          Array.from({ length: 200 }, (_, index) => ({
            groupId: group.id,
            opId: `tap-${index}`,
            mutation: tap(counter.id, 'increment'),
          })),
        );
        expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(100);
        const refused = outcomes.filter((outcome) => !outcome.ok);
        expect(refused).toHaveLength(100);
        for (const outcome of refused) {
          expect(outcome).toMatchObject({
            code: 'limit_reached',
            message: 'Limit reached: this counter cannot go above 100.',
          });
        }
        // The first 100 in order counted, the rest did not.
        expect(outcomes.slice(0, 100).every((outcome) => outcome.ok)).toBe(true);
        expect((await state()).counters[0]?.value).toBe(100);
      });

      it('stops 200 concurrent batches of one tap each exactly at the maximum', async () => {
        const { store, group, create, state } = await setUp();
        const counter = await create({ name: 'Room', max: 100, incrementStep: 1 });
        const outcomes = (
          await Promise.all(
            Array.from({ length: 200 }, () =>
              store.commit([{ groupId: group.id, mutation: tap(counter.id, 'increment') }]),
            ),
          )
        ).flat();
        expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(100);
        expect(
          outcomes.filter((outcome) => !outcome.ok && outcome.code === 'limit_reached'),
        ).toHaveLength(100);
        expect((await state()).counters[0]?.value).toBe(100);
      });

      it('refuses a tap of several steps whole, and one that fits still counts after it', async () => {
        const { commit, create } = await setUp();
        const counter = await create({ max: 10, incrementStep: 4 });
        expect(counterOf(await commit(tap(counter.id, 'increment', 2))).value).toBe(8);
        expect(await commit(tap(counter.id, 'increment'))).toMatchObject({
          ok: false,
          code: 'limit_reached',
        });
        expect(
          await commit({ kind: 'updateCounter', counterId: counter.id, patch: { value: 10 } }),
        ).toMatchObject({ ok: true });
      });

      it('keeps the value at or above the minimum, whatever the step', async () => {
        const { store, group, create } = await setUp();
        const counter = await create({ value: 5, min: 0, decrementStep: 2 });
        const outcomes = await store.commit(
          Array.from({ length: 5 }, () => ({
            groupId: group.id,
            mutation: tap(counter.id, 'decrement'),
          })),
        );
        expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, true, false, false, false]);
        expect(outcomes[2]).toMatchObject({
          code: 'limit_reached',
          message: 'Limit reached: this counter cannot go below 0.',
        });
        const last = outcomes[1];
        expect(last?.ok && last.result.kind === 'counter' && last.result.counter.value).toBe(1);
      });

      it('refuses limits out of order or around a value outside them, and a typed value past one', async () => {
        const { commit, create } = await setUp();
        const counter = await create({ value: 50 });
        const patch = (fields: object) =>
          commit({ kind: 'updateCounter', counterId: counter.id, patch: fields });
        expect(await patch({ max: 40 })).toMatchObject({
          ok: false,
          code: 'validation_failed',
          message: 'The value must stay between the minimum and the maximum.',
        });
        expect(await patch({ max: 60 })).toMatchObject({ ok: true });
        expect(await patch({ min: 70 })).toMatchObject({
          ok: false,
          code: 'validation_failed',
          message: 'The minimum cannot be greater than the maximum.',
        });
        expect(await patch({ value: 61 })).toMatchObject({ ok: false, code: 'limit_reached' });
        expect(await create({ value: 5, min: 10 }).catch((error: unknown) => error)).toBeInstanceOf(
          Error,
        );
      });
    });

    describe('goals', () => {
      it('announces the goal once per crossing, naming who reached it, and logs it', async () => {
        const { store, group, commit, create, log } = await setUp();
        const counter = await create({ name: 'Pushups', goal: 3 });
        const [first, second] = await store.commit([
          { groupId: group.id, mutation: tap(counter.id, 'increment', 2), actor: 'Ada' },
          { groupId: group.id, mutation: tap(counter.id, 'increment'), actor: 'Bob' },
        ]);
        const changes = [
          ...(first?.ok ? first.changes : []),
          ...(second?.ok ? second.changes : []),
        ];
        expect(changes).toHaveLength(1);
        expect(changes[0]).toMatchObject({ type: 'counter.updated', goalReachedBy: 'Bob' });
        // Past the goal: no new announcement.
        const later = await commit(tap(counter.id, 'increment'), 'Ada');
        expect(
          later.ok && (later.changes[0] as Change & { goalReachedBy?: string }),
        ).not.toHaveProperty('goalReachedBy');
        // Back below and up again: a new crossing.
        await commit(tap(counter.id, 'decrement', 2), 'Ada');
        const again = await commit(tap(counter.id, 'increment'), 'Cy');
        expect(again.ok && again.changes[0]).toMatchObject({ goalReachedBy: 'Cy' });
        const reached = (await log()).filter(
          (entry) => entry.kind === 'counter.adjusted' && entry.reachedGoal !== null,
        );
        expect(
          reached.map((entry) => [
            entry.actor,
            entry.kind === 'counter.adjusted' && entry.reachedGoal,
          ]),
        ).toEqual([
          ['Cy', 3],
          ['Bob', 3],
        ]);
      });
    });

    describe('periods', () => {
      it('ends a daily period at midnight in the group’s time zone, keeps its final value and starts over', async () => {
        const { store, group, commit, create, state, log } = await setUp();
        expect(
          await commit({ kind: 'updateGroup', patch: { timeZone: 'Europe/Berlin', weekStart: 1 } }),
        ).toMatchObject({ ok: true });
        const counter = await create({ name: 'Coffees', reset: 'daily', startValue: 0 });
        // 12:00 UTC is 13:00 in Berlin: the period started at 23:00 UTC the day before.
        expect(counter.periodStart).toBe('2026-11-22T23:00:00.000Z');
        await commit(tap(counter.id, 'increment', 4), 'Ada');
        const dueHere = async () =>
          (await store.duePeriods(clock.now, 500)).filter((due) => due.groupId === group.id);
        expect(await dueHere()).toEqual([]);

        // Berlin's midnight is 23:00 UTC; a tap one minute after it counts in the new day.
        clock.now = Date.parse('2026-11-23T23:01:00Z');
        expect(await dueHere()).toEqual([{ groupId: group.id, counterId: counter.id }]);
        const after = await commit(tap(counter.id, 'increment'), 'Bob');
        expect(after.ok && after.changes.map((change) => change.type)).toEqual([
          'counter.updated',
          'counter.updated',
        ]);
        const now = (await state()).counters[0];
        expect(now).toMatchObject({
          value: 1,
          allTime: 5,
          periodStart: '2026-11-23T23:00:00.000Z',
        });
        expect(await store.counterPeriods(group.id, counter.id, 10)).toEqual([
          {
            counterId: counter.id,
            start: '2026-11-22T23:00:00.000Z',
            end: '2026-11-23T23:00:00.000Z',
            value: 4,
          },
        ]);
        const reset = (await log()).find((entry) => entry.kind === 'counter.reset');
        expect(reset).toMatchObject({
          actor: 'Tally',
          final: 4,
          value: 0,
          periodEnd: '2026-11-23T23:00:00.000Z',
        });
        // The tap before midnight belongs to the ended period: it cannot be undone any more.
        const before = (await log()).find(
          (entry): entry is Extract<ActivityEntry, { kind: 'counter.adjusted' }> =>
            entry.kind === 'counter.adjusted' && entry.actor === 'Ada',
        );
        expect(await commit({ kind: 'undoEntry', entryId: before?.id ?? 0 })).toMatchObject({
          ok: false,
          code: 'cannot_undo',
        });
        expect(await commit({ kind: 'undoEntry', entryId: reset?.id ?? 0 })).toMatchObject({
          ok: false,
          code: 'cannot_undo',
          message: 'An automatic reset cannot be undone.',
        });
      });

      it('ends due periods without a tap through the scheduler, once across two instances', async () => {
        const { store, group, create, state } = await setUp();
        const counter = await create({ reset: 'weekly', value: 7, startValue: 2 });
        const other = store.kind === 'postgres' ? await open() : store;
        clock.now = Date.parse('2026-11-30T00:00:30Z');
        const submitted: OperationOutcome[] = [];
        const endsOn = (target: Store) =>
          new PeriodEnds({
            store: target,
            submit: async (operation) => {
              const [outcome] = await target.commit([operation]);
              if (!outcome) throw new Error('no outcome');
              submitted.push(outcome);
              return outcome;
            },
            onError: (error) => {
              throw error;
            },
            clock: () => clock.now,
          });
        // Both instances find it due and both commit: the period ends once.
        const [a, b] = await Promise.all([endsOn(store).endDue(), endsOn(other).endDue()]);
        expect(a + b).toBeGreaterThanOrEqual(1);
        // (On a database shared with other tests, their due counters end here too.)
        const changes = submitted
          .flatMap((outcome) => outcome.changes ?? [])
          .filter(
            (change) => change.type === 'counter.updated' && change.counter.id === counter.id,
          );
        expect(changes).toHaveLength(1);
        expect((await state()).counters[0]).toMatchObject({ value: 2, allTime: 9 });
        expect(await store.counterPeriods(group.id, counter.id, 10)).toHaveLength(1);
        expect(
          (await store.duePeriods(clock.now, 500)).filter((due) => due.counterId === counter.id),
        ).toEqual([]);
      });

      it('starts weeks on the group’s chosen day and months on the first', async () => {
        const { commit, create } = await setUp();
        await commit({
          kind: 'updateGroup',
          patch: { timeZone: 'America/New_York', weekStart: 7 },
        });
        const weekly = await create({ reset: 'weekly' });
        const monthly = await create({ reset: 'monthly' });
        // Monday 23 Nov 2026, 07:00 in New York: the week began on Sunday 22 Nov at 00:00 EST.
        expect(weekly.periodStart).toBe('2026-11-22T05:00:00.000Z');
        expect(monthly.periodStart).toBe('2026-11-01T04:00:00.000Z');
      });
    });

    describe('order', () => {
      it('keeps creation order until reordered, then the stored order, new counters last', async () => {
        const { commit, create, state, log } = await setUp();
        const a = await create({ name: 'A' });
        const b = await create({ name: 'B' });
        const c = await create({ name: 'C' });
        const names = async () => (await state()).counters.map((counter) => counter.name);
        expect(await names()).toEqual(['A', 'B', 'C']);
        const reordered = await commit({ kind: 'reorderCounters', counterIds: [c.id, a.id, b.id] });
        expect(reordered).toMatchObject({
          ok: true,
          result: { kind: 'order', counterIds: [c.id, a.id, b.id] },
          changes: [{ type: 'counters.reordered', counterIds: [c.id, a.id, b.id] }],
        });
        expect(await names()).toEqual(['C', 'A', 'B']);
        await create({ name: 'D' });
        expect(await names()).toEqual(['C', 'A', 'B', 'D']);
        for (const counterIds of [[c.id, a.id, b.id], [c.id, a.id, b.id, b.id], ['x']]) {
          expect(await commit({ kind: 'reorderCounters', counterIds })).toMatchObject({
            ok: false,
            code: 'invalid_order',
          });
        }
        const entry = (await log()).find((item) => item.kind === 'counters.reordered');
        expect(await commit({ kind: 'undoEntry', entryId: entry?.id ?? 0 })).toMatchObject({
          ok: true,
        });
        expect(await names()).toEqual(['A', 'B', 'C', 'D']);
      });
    });

    describe('sections', () => {
      it('holds a section’s total to its maximum across its counters, and undoes the maximum', async () => {
        const { store, group, commit, create, log, state } = await setUp();
        const north = await create({ name: 'North', section: 'Entrances', value: 120 });
        const south = await create({ name: 'South', section: 'Entrances', value: 85 });
        await create({ name: 'Staff', value: 1000 });
        expect(
          await commit({ kind: 'updateSection', section: 'Entrances', max: 200 }),
        ).toMatchObject({
          ok: false,
          code: 'limit_reached',
          message: 'The maximum of Entrances cannot be less than its current total of 205.',
        });
        expect(
          await commit({ kind: 'updateSection', section: 'Entrances', max: 210 }),
        ).toMatchObject({
          ok: true,
          result: { kind: 'group', group: { sectionLimits: { Entrances: 210 } } },
        });
        const taps = await store.commit(
          Array.from({ length: 10 }, (_, index) => ({
            groupId: group.id,
            mutation: tap(index % 2 === 0 ? north.id : south.id, 'increment'),
          })),
        );
        expect(taps.filter((outcome) => outcome.ok)).toHaveLength(5);
        expect(taps.find((outcome) => !outcome.ok)).toMatchObject({
          code: 'limit_reached',
          message: 'Limit reached: Entrances cannot hold more than 210 in total.',
        });
        const total = (await state()).counters
          .filter((counter) => counter.section === 'Entrances')
          .reduce((sum, counter) => sum + counter.value, 0);
        expect(total).toBe(210);
        // Moving a counter into the full section is refused; out of it is fine.
        const staff = (await state()).counters.find((counter) => counter.name === 'Staff');
        expect(
          await commit({
            kind: 'updateCounter',
            counterId: staff?.id ?? '',
            patch: { section: 'Entrances' },
          }),
        ).toMatchObject({ ok: false, code: 'limit_reached' });
        expect(await commit(tap(north.id, 'decrement'))).toMatchObject({ ok: true });
        const entry = (await log()).find(
          (item) =>
            item.kind === 'group.updated' &&
            item.changes.some((change) => change.field === 'sectionMax'),
        );
        expect(entry).toMatchObject({
          changes: [{ field: 'sectionMax', section: 'Entrances', from: null, to: 210 }],
        });
        expect(await commit({ kind: 'undoEntry', entryId: entry?.id ?? 0 })).toMatchObject({
          ok: true,
          result: { kind: 'group', group: { sectionLimits: {} } },
        });
      });
    });

    describe('bounds', () => {
      it('keeps a counter’s newest 400 ended periods', async () => {
        const { store, group, commit, create } = await setUp();
        const counter = await create({ reset: 'daily' });
        // 402 days, one tap a day: each tap first ends the day before.
        for (let day = 1; day <= 402; day += 1) {
          clock.now += 24 * 3_600_000;
          await commit(tap(counter.id, 'increment'));
        }
        const periods = await store.counterPeriods(group.id, counter.id, 400);
        expect(periods).toHaveLength(400);
        expect((await store.groupPeriods(group.id)).length).toBe(400);
        // Newest first (the day before the last tap); the two oldest days are gone.
        expect(periods?.[0]?.end).toBe('2027-12-30T00:00:00.000Z');
        expect(periods?.[399]?.start).toBe('2026-11-25T00:00:00.000Z');
      });

      it('refuses a 101st section with a maximum, and takes one back in its place', async () => {
        const { commit } = await setUp();
        for (let index = 0; index < 100; index += 1) {
          expect(
            await commit({ kind: 'updateSection', section: `S${index}`, max: 10 }),
          ).toMatchObject({ ok: true });
        }
        expect(await commit({ kind: 'updateSection', section: 'S100', max: 10 })).toMatchObject({
          ok: false,
          code: 'validation_failed',
          message: 'This group has reached its limit of 100 sections with a maximum.',
        });
        // Changing one that has a maximum, or clearing one, still works.
        expect(await commit({ kind: 'updateSection', section: 'S5', max: 20 })).toMatchObject({
          ok: true,
        });
        expect(await commit({ kind: 'updateSection', section: 'S5', max: null })).toMatchObject({
          ok: true,
        });
        expect(await commit({ kind: 'updateSection', section: 'S100', max: 10 })).toMatchObject({
          ok: true,
        });
      });
    });

    describe('tallies', () => {
      it('adds up what each member added and took away, from the log, without undone taps', async () => {
        const { store, group, commit, create, log } = await setUp();
        const coffees = await create({ name: 'Coffees', incrementStep: 2 });
        const teas = await create({ name: 'Teas' });
        await store.commit([
          { groupId: group.id, mutation: tap(coffees.id, 'increment', 3), actor: 'Ada' },
          { groupId: group.id, mutation: tap(coffees.id, 'decrement'), actor: 'Ada' },
          { groupId: group.id, mutation: tap(coffees.id, 'increment'), actor: 'Bob' },
        ]);
        await commit(tap(teas.id, 'increment', 5), 'Bob');
        const undone = await commit(tap(teas.id, 'increment', 100), 'Bob');
        expect(undone.ok).toBe(true);
        const last = (await log()).find((entry) => entry.kind === 'counter.adjusted');
        await commit({ kind: 'undoEntry', entryId: last?.id ?? 0 }, 'Bob');

        expect(await store.tallies(group.id, { limit: 100 })).toEqual([
          // Largest net first; a tie goes by name.
          {
            member: 'Ada',
            link: null,
            counterId: coffees.id,
            increments: 6,
            decrements: 1,
            net: 5,
          },
          { member: 'Bob', link: null, counterId: teas.id, increments: 5, decrements: 0, net: 5 },
          {
            member: 'Bob',
            link: null,
            counterId: coffees.id,
            increments: 2,
            decrements: 0,
            net: 2,
          },
        ]);
        expect(await store.tallies(group.id, { limit: 100, counterId: coffees.id })).toHaveLength(
          2,
        );
        clock.now += 60_000;
        await commit(tap(coffees.id, 'increment'), 'Cy');
        expect(await store.tallies(group.id, { limit: 100, since: clock.now })).toEqual([
          { member: 'Cy', link: null, counterId: coffees.id, increments: 2, decrements: 0, net: 2 },
        ]);
      });
    });
  });
}

function counterOf(outcome: OperationOutcome): Counter {
  if (!outcome.ok || outcome.result.kind !== 'counter') {
    throw new Error(`not a counter: ${JSON.stringify(outcome)}`);
  }
  return outcome.result.counter;
}
