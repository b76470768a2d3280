/**
 * Starts a Tally server of a test's own (the real entry point, src/server/main.ts), for tests that
 * stop and restart it: the shared server of global-setup.ts must stay up for every other test.
 * It serves the dist/web that global setup built.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';

const ROOT = path.resolve(import.meta.dirname, '../../..');
/** The server must be listening within this time, ms. */
const START_TIMEOUT_MS = 30_000;

export interface RunningServer {
  url: string;
  port: number;
  /** SIGTERM (graceful: live sockets are closed with 1001), then waits for the exit. */
  stop(): Promise<void>;
}

/** port 0 picks a free port; pass the same port and database to restart "the same" server. */
export function startServer(options: {
  port: number;
  databaseFile: string;
}): Promise<RunningServer> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(ROOT, 'src/server/main.ts')],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: String(options.port),
        HOST: '127.0.0.1',
        DATABASE_URL: `file:${options.databaseFile}`,
        LOG_LEVEL: 'info',
        // Every test creates groups from 127.0.0.1: more than the default 100 an hour.
        MAX_GROUPS_PER_ADDRESS_PER_HOUR: '1000000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  return new Promise((resolve, reject) => {
    const output: string[] = [];
    const fail = (message: string) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${message}:\n${output.join('\n')}`));
    };
    const timer = setTimeout(() => {
      fail(`Tally did not start within ${String(START_TIMEOUT_MS)} ms`);
    }, START_TIMEOUT_MS);
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      output.push(line);
      const match = /Server listening at (http:\/\/127\.0\.0\.1:(\d+))/.exec(line);
      if (match?.[1] && match[2]) {
        clearTimeout(timer);
        resolve({ url: match[1], port: Number(match[2]), stop: () => stop(child) });
      }
    });
    child.stderr.on('data', (data: Buffer) => {
      output.push(data.toString());
    });
    child.on('exit', (code) => {
      if (child.exitCode !== null && output.every((line) => !line.includes('Server listening'))) {
        fail(`Tally exited with code ${String(code)} before listening`);
      }
    });
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
