/**
 * An overloaded server for tests: a store whose commits stall until released (a disk or database
 * that hangs), and the answers to live mutations (an `ack`, or an `error` such as `busy`).
 */
import type { ErrorCode } from '../../../src/shared/api.js';
import type { ServerMessage } from '../../../src/shared/protocol.js';
import type { Operation, OperationOutcome } from '../../../src/server/store/types.js';
import type { HardenedServer } from './server.js';

export type Answer =
  | Extract<ServerMessage, { type: 'ack' }>
  | (Extract<ServerMessage, { type: 'error' }> & { opId: string });

export const answerTo =
  (opId: string) =>
  (m: ServerMessage): m is Answer =>
    (m.type === 'ack' || m.type === 'error') && m.opId === opId;

/** `ok` for an ack, else the error's code. */
export const errorCode = (answer: Answer): ErrorCode | 'ok' =>
  answer.type === 'ack' ? 'ok' : answer.error.code;

/** Holds every commit of the server's store until released: a disk or database that stalls. */
export function stallCommits(server: HardenedServer): { release: () => void } {
  const store = server.app.tally.store;
  const commit = store.commit.bind(store);
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  store.commit = async (operations: readonly Operation[]): Promise<OperationOutcome[]> => {
    await gate;
    return commit(operations);
  };
  return {
    release: () => {
      store.commit = commit;
      release();
    },
  };
}
