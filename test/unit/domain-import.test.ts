import { describe, expect, it } from 'vitest';
import type { Counter } from '../../src/shared/api.js';
import {
  countersAhead,
  importedCounterId,
  matchCounters,
  type ImportedCounter,
} from '../../src/server/domain/import.js';
import { counterRow } from '../helpers/domain.js';

const fileCounter = (sourceId: string, value = 0): ImportedCounter => ({
  sourceId,
  fields: { ...counterRow('g', sourceId).counter, value },
  createdAt: null,
  allTime: null,
});

describe('domain: an import’s counters', () => {
  // The group has a counter of its own (a file exported from it names it by its id) and one an
  // earlier import made (its id derived from the file's); the file repeats a new counter.
  const own = counterRow('g', 'own').counter;
  const earlier = counterRow('g', importedCounterId('g', 'bettercounter', 'Laps')).counter;
  const group = new Map<string, Counter>([own, earlier].map((counter) => [counter.id, counter]));
  const counters = [
    fileCounter('own', 5),
    fileCounter('Laps'),
    fileCounter('Coffees'),
    fileCounter('Coffees'),
    fileCounter('Teas'),
  ];
  const context = { groupId: 'g', format: 'bettercounter' as const };

  it('counts, with pauses between slices, the counters the commit would create, and derives their ids as it does', async () => {
    let pauses = 0;
    const ahead = await countersAhead(context, counters, {
      counterOf: (id) => group.get(id),
      pause: () => {
        pauses += 1;
        return Promise.resolve();
      },
    });
    const match = matchCounters(context, counters, (id) => group.get(id));
    expect(ahead.creates).toBe(match.creates.length);
    expect(ahead.creates).toBe(3);
    for (const { sourceId } of counters) {
      expect(ahead.derivedIds.get(sourceId)).toBe(
        importedCounterId('g', 'bettercounter', sourceId),
      );
    }
    expect(pauses).toBe(0);

    const many = Array.from({ length: 4_001 }, (_, index) => fileCounter(`c${String(index)}`));
    await countersAhead(context, many, {
      counterOf: () => undefined,
      pause: () => {
        pauses += 1;
        return Promise.resolve();
      },
    });
    expect(pauses).toBe(2);
  });

  it('matches by the derived ids it is given exactly as by the ids it derives itself', async () => {
    const { derivedIds } = await countersAhead(context, counters, {
      counterOf: (id) => group.get(id),
      pause: () => Promise.resolve(),
    });
    const given = matchCounters({ ...context, derivedIds }, counters, (id) => group.get(id));
    const derived = matchCounters(context, counters, (id) => group.get(id));
    expect(given.creates).toEqual(derived.creates);
    expect(given.updates).toEqual(derived.updates);
    for (const { sourceId } of counters) {
      expect(given.targetOf(sourceId)).toBe(derived.targetOf(sourceId));
    }
    expect(given.targetOf('own')).toBe('own');
  });
});
