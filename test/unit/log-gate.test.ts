/**
 * The SQLite store's gate on a group's log (store/sqlite/log-gate.ts, ADR 37): while an import's
 * entries are moved into a group's log, that group's reads wait and run after it opens; other
 * groups' reads do not wait; closing waits for the group's reads under way to end first.
 */
import { describe, expect, it } from 'vitest';
import { LogGate } from '../../src/server/store/sqlite/log-gate.js';

const turn = () =>
  new Promise<void>((resolve) => {
    setImmediate(resolve);
  });

describe('the log gate', () => {
  it('holds a group’s reads while it is closed and runs them after it opens; other groups read on', async () => {
    const gate = new LogGate();
    const order: string[] = [];
    const open = await gate.close('moving');
    const held = gate.read('moving', () => {
      order.push('moving read');
      return Promise.resolve(1);
    });
    const other = gate.read('other', () => {
      order.push('other read');
      return Promise.resolve(2);
    });
    await other;
    for (let index = 0; index < 5; index += 1) await turn();
    order.push('opened');
    open();
    expect(await held).toBe(1);
    expect(order).toEqual(['other read', 'opened', 'moving read']);
  });

  it('closes only once the group’s reads under way have ended', async () => {
    const gate = new LogGate();
    const order: string[] = [];
    let finish = (): void => undefined;
    const reading = gate.read(
      'moving',
      () =>
        new Promise<void>((resolve) => {
          finish = () => {
            order.push('read ended');
            resolve();
          };
        }),
    );
    const closing = gate.close('moving').then((open) => {
      order.push('closed');
      return open;
    });
    for (let index = 0; index < 5; index += 1) await turn();
    finish();
    await reading;
    const open = await closing;
    open();
    expect(order).toEqual(['read ended', 'closed']);
  });
});
