/**
 * Alert rules committed straight to a store, for tests of the outbox and the sender without a
 * server around them.
 */
import type { Store } from '../../src/server/store/types.js';
import type { Counter } from '../../src/shared/api.js';
import { newKey } from './client.js';

/**
 * A new group of `store` whose counter fires an alert on every tap, to the ntfy destination
 * `destinationId` at `url`; `tap(n)` commits n taps of +1 in one batch (one commit).
 */
export async function groupAlertingEveryTap(store: Store, destinationId: string, url: string) {
  const { group } = await store.createGroup(`alerting-${newKey(3)}`, 'hash');
  const [created] = await store.commit([
    { groupId: group.id, mutation: { kind: 'createCounter', fields: { name: 'Visitors' } } },
  ]);
  const counter = (
    created?.ok === true && created.result.kind === 'counter' ? created.result.counter : undefined
  ) as Counter;
  await store.commit([
    {
      groupId: group.id,
      mutation: {
        kind: 'addAlertRule',
        rule: {
          id: `every-${destinationId}`,
          counterId: null,
          section: null,
          when: { kind: 'every', value: 1 },
          to: { kind: 'webhook', url, format: 'ntfy' },
          destinationId,
          createdAt: Date.now(),
        },
        destination: {
          id: destinationId,
          kind: 'webhook',
          url,
          format: 'ntfy',
          secret: null,
          linkBase: 'https://tally.example',
        },
      },
    },
  ]);
  const tap = async (times: number) => {
    await store.commit(
      Array.from({ length: times }, () => ({
        groupId: group.id,
        mutation: {
          kind: 'adjustCounter' as const,
          counterId: counter.id,
          direction: 'increment' as const,
          times: 1,
        },
      })),
    );
  };
  return { groupId: group.id, tap };
}
