/**
 * README is the front door: its API walk-through is pasted line by line by newcomers, so it must
 * work as written. This runs the walk-through's shell block in bash against a real server (its
 * address in place of localhost:3000) and compares what each command prints with the `# →` line
 * under it. `set -euo pipefail`: a variable used before it is set, or a command that fails, stops
 * the run. It also checks what the first screen promises: the commands to run and to test Tally,
 * a screenshot, and links that lead somewhere.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const README_ADDRESS = 'http://localhost:3000';
/** What a command's output is compared with: the comment line under it. */
const EXPECTED = /^# → (.*)$/;

interface Step {
  command: string;
  /** What it prints, as README says; undefined: README says nothing (it must still succeed). */
  expected: string | undefined;
}

/** The first `sh` block after `heading`. */
function shellBlockAfter(heading: string): string {
  const start = README.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`README has no "${heading}" section`);
  const block = /```sh\n([\s\S]*?)```/.exec(README.slice(start));
  if (!block?.[1]) throw new Error(`no sh block under "${heading}"`);
  return block[1];
}

function stepsOf(block: string): Step[] {
  const steps: Step[] = [];
  for (const line of block.split('\n')) {
    const expected = EXPECTED.exec(line);
    if (expected) {
      const last = steps.at(-1);
      if (!last || last.expected !== undefined) throw new Error(`"${line}" follows no command`);
      last.expected = expected[1];
    } else if (line.trim() !== '' && !line.startsWith('#')) {
      steps.push({ command: line, expected: undefined });
    }
  }
  return steps;
}

/** Runs the steps in one bash, each after a marker line; resolves with each step's output. */
function runInBash(steps: Step[], baseUrl: string): Promise<{ outputs: string[]; stderr: string }> {
  const marker = (index: number) => `@@step ${index}@@`;
  const script = [
    'set -euo pipefail',
    ...steps.flatMap((step, index) => [
      `echo '${marker(index)}'`,
      step.command.replaceAll(README_ADDRESS, baseUrl),
    ]),
    `echo '${marker(steps.length)}'`,
  ].join('\n');
  return new Promise((resolve, reject) => {
    const bash = spawn('bash', ['-c', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    bash.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    bash.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    bash.on('error', reject);
    bash.on('close', (code) => {
      const outputs = steps.map((_step, index) => {
        const from = stdout.indexOf(`${marker(index)}\n`);
        const to = stdout.indexOf(marker(index + 1));
        return from < 0
          ? ''
          : stdout.slice(from + marker(index).length + 1, to < 0 ? undefined : to);
      });
      const reached = steps.findIndex((_step, index) => !stdout.includes(marker(index + 1)));
      if (code !== 0) {
        reject(
          new Error(
            `README's walk-through stopped at "${steps[reached]?.command ?? '?'}" (exit ${String(code)}): ${stderr}`,
          ),
        );
        return;
      }
      resolve({ outputs, stderr });
    });
  });
}

describe('README', () => {
  it('gives the commands to run and to test Tally on its first screen', () => {
    const firstScreen = README.split('\n').slice(0, 30).join('\n');
    for (const command of ['npm install', 'npm start', 'npm test']) {
      expect(firstScreen).toContain(`\n${command}\n`);
    }
  });

  it('shows a screenshot that exists and links only to files that exist', () => {
    const targets = [...README.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((match) => match[1]);
    expect(targets.some((target) => target?.endsWith('.png'))).toBe(true);
    for (const target of targets) {
      if (!target || /^https?:/.test(target)) continue;
      expect(fs.existsSync(path.join(ROOT, target)), target).toBe(true);
    }
  });

  it('is short enough to read in a few minutes', () => {
    const words = README.split(/\s+/).filter(Boolean).length;
    expect(words).toBeLessThan(1_600);
  });

  describe('API walk-through, pasted into bash against a real server', () => {
    let server: TestServer;
    const steps = stepsOf(shellBlockAfter('## Try the API'));

    beforeAll(async () => {
      server = await startServer({ logLevel: 'info' });
    });

    afterAll(async () => {
      await server.close();
    });

    it('prints what README says after each command', { timeout: 60_000 }, async () => {
      expect(steps.filter((step) => step.expected !== undefined).length).toBeGreaterThan(8);
      const { outputs } = await runInBash(steps, server.url);
      const shown = steps.map((step, index) => ({
        command: step.command,
        printed: step.expected === undefined ? undefined : outputs[index]?.trim(),
      }));
      expect(shown).toEqual(
        steps.map((step) => ({ command: step.command, printed: step.expected })),
      );
    });

    it('never logs the keys it used', () => {
      const keys = [...server.logs().matchAll(/[0-9a-f]{64}/g)];
      expect(keys).toEqual([]);
    });
  });
});
