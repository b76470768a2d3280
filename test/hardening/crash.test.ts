/**
 * Every acknowledged change survives a crash. The real server runs as a child process
 * (`node --import tsx src/server/main.ts`) on a SQLite file; while clients tap as fast as they
 * can, it is killed with SIGKILL and started again on the same file, three times. Each time:
 * every increment answered 200 before the kill is in the database; the taps that were in flight,
 * retried with the same operation id, are applied exactly once; and a live client with ordinary
 * reconnect logic resyncs by itself. Restart times are printed, not asserted.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { afterAll, describe, expect, it } from 'vitest';
import type { Counter } from '../../src/shared/api.js';
import { PROTOCOL_VERSION, livePath, type ServerMessage } from '../../src/shared/protocol.js';
import { call, createGroup } from '../helpers/client.js';
import { freePort } from '../../bench/targets.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const KILLS = 3;
const TAPPERS = 8;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-crash-'));
let child: ChildProcess | undefined;
afterAll(() => {
  child?.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Starts the server and resolves with how long it took until /api/health answered 200, ms. */
async function start(port: number): Promise<number> {
  const started = Date.now();
  const output: string[] = [];
  child = spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: `file:${path.join(dir, 'tally.sqlite')}`,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited: ${output.join('')}`);
    try {
      const health = await fetch(`http://127.0.0.1:${port}/api/health`);
      if (health.status === 200) return Date.now() - started;
    } catch {
      // Not listening yet.
    }
    if (Date.now() - started > 30_000) throw new Error(`server did not start: ${output.join('')}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function kill(): Promise<void> {
  const victim = child;
  if (!victim) return Promise.resolve();
  return new Promise((resolve) => {
    victim.once('exit', () => {
      resolve();
    });
    victim.kill('SIGKILL');
  });
}

/** A live client as a browser tab runs it: reconnects with a short back-off, resyncs on ready. */
function reconnectingClient(wsUrl: string, group: string, key: string) {
  const state = { counters: new Map<string, Counter>(), readies: 0, stopped: false };
  let current: WebSocket | undefined;
  const connect = () => {
    const socket = new WebSocket(wsUrl + livePath(group));
    current = socket;
    socket.on('open', () => {
      socket.send(JSON.stringify({ type: 'auth', protocol: PROTOCOL_VERSION, key }));
    });
    socket.on('message', (data: Buffer) => {
      const message = JSON.parse(data.toString()) as ServerMessage;
      if (message.type === 'ready') {
        state.readies += 1;
        state.counters = new Map(message.counters.map((c) => [c.id, c]));
      } else if (message.type === 'changes') {
        for (const change of message.changes) {
          if (change.type !== 'counter.updated' && change.type !== 'counter.created') continue;
          const held = state.counters.get(change.counter.id);
          if (!held || held.version < change.counter.version)
            state.counters.set(change.counter.id, change.counter);
        }
      }
    });
    socket.on('error', () => {
      // 'close' follows.
    });
    socket.on('close', () => {
      if (!state.stopped) setTimeout(connect, 100);
    });
  };
  connect();
  return {
    state,
    stop: () => {
      state.stopped = true;
      current?.close();
    },
  };
}

async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 15_000) {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('kill -9 during sustained increments', () => {
  it(`loses no acknowledged increment over ${KILLS} kills, applies retried taps once, and live clients resync`, async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const firstStart = await start(port);
    const member = await createGroup(url);
    const counter = await member.addCounter({ name: 'Survivor' });
    const incrementPath = `${member.base}/counters/${counter.id}/increment`;
    const live = reconnectingClient(`ws://127.0.0.1:${port}`, member.group.name, member.key);
    await until(() => live.state.readies >= 1);

    const answered = new Set<string>();
    const restarts: number[] = [];
    let sent = 0;
    let unanswered: string[] = [];
    for (let kill_ = 0; kill_ < KILLS; kill_++) {
      const before = answered.size;
      let running = true;
      const failed: string[] = [];
      const tapper = async (client: number) => {
        for (let i = 0; running; i++) {
          const opId = `k${kill_}-c${client}-${i}`;
          sent += 1;
          try {
            const answer = await call<Counter>(url, 'POST', incrementPath, {
              key: member.key,
              body: { opId },
            });
            if (answer.status === 200) answered.add(opId);
            else failed.push(opId);
          } catch {
            // The connection died with the server: this tap's fate is unknown.
            failed.push(opId);
            return;
          }
        }
      };
      const tapping = Promise.all(Array.from({ length: TAPPERS }, (_, c) => tapper(c)));
      // Kill once a good number of taps has been acknowledged in this round.
      await until(() => answered.size >= before + 300, 30_000);
      await kill();
      running = false;
      await tapping;
      const restart = await start(port);
      restarts.push(restart);

      // Every acknowledged increment is in the database (each tap adds exactly 1).
      const [stored] = (
        await call<Counter[]>(url, 'GET', `${member.base}/counters`, {
          key: member.key,
        })
      ).body;
      expect(stored?.value ?? -1).toBeGreaterThanOrEqual(answered.size);
      expect(stored?.value ?? -1).toBeLessThanOrEqual(answered.size + failed.length);

      // The taps whose answer was lost, retried with their operation ids, apply exactly once.
      for (const opId of failed) {
        const retry = await call<Counter>(url, 'POST', incrementPath, {
          key: member.key,
          body: { opId },
        });
        expect(retry.status).toBe(200);
        answered.add(opId);
      }
      unanswered = failed;
      const [afterRetries] = (
        await call<Counter[]>(url, 'GET', `${member.base}/counters`, {
          key: member.key,
        })
      ).body;
      expect(afterRetries?.value).toBe(answered.size);

      // The live client reconnected by itself and shows the server's value.
      await until(() => live.state.counters.get(counter.id)?.value === answered.size);
      expect(live.state.readies).toBe(kill_ + 2);
    }
    // A retry of an old, acknowledged tap is answered without applying it again.
    const [firstTap] = [...answered];
    const replay = await call<Counter>(url, 'POST', incrementPath, {
      key: member.key,
      body: { opId: firstTap },
    });
    expect(replay.status).toBe(200);
    const [final] = (
      await call<Counter[]>(url, 'GET', `${member.base}/counters`, {
        key: member.key,
      })
    ).body;
    expect(final?.value).toBe(answered.size);
    live.stop();
    await kill();
    console.log(
      `crash: ${KILLS} kills survived; ${sent} taps sent, ${answered.size} applied exactly once (last round: ${unanswered.length} in flight at the kill, retried); first start ${firstStart} ms, restarts after kill -9: ${restarts.join(', ')} ms (until /api/health answers)`,
    );
  }, 180_000);
});

describe('two server processes on one SQLite file', () => {
  it('the second refuses to start with one line; after the first is killed -9, a new one starts', async () => {
    const port = await freePort();
    await start(port);
    const first = child;
    const second = spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: String(await freePort()),
        HOST: '127.0.0.1',
        DATABASE_URL: `file:${path.join(dir, 'tally.sqlite')}`,
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    second.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => second.once('exit', resolve));
    expect(code).not.toBe(0);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^tally: could not start: another Tally server is already using /);
    expect((await fetch(`http://127.0.0.1:${port}/api/health`)).status).toBe(200);

    // The operating system drops the lock with the crashed process.
    child = first;
    await kill();
    await start(await freePort());
    await kill();
  }, 60_000);
});
