/**
 * docs/api.md shows the live channel's server frames and the activity log's entries as JSON
 * examples. This test reads those examples out of the page and compares them with what a real
 * server sends to real WebSocket clients and answers over REST, by shape (keys and JSON types,
 * nested objects and array items included):
 *
 * - every documented example has the shape of at least one real frame (or change, or entry) of
 *   its kind: no documented field is missing or of another type;
 * - every field of every real frame, change or entry appears in the examples of its kind: nothing
 *   the server sends goes undocumented.
 *
 * A `changes` frame is compared change by change, each by its `type`; entries by their `kind`.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityPage } from '../../src/shared/activity.js';
import type { Counter } from '../../src/shared/api.js';
import { PROTOCOL_VERSION, type ServerMessage } from '../../src/shared/protocol.js';
import { call, createGroup } from '../helpers/client.js';
import { connectLive, isReady, type LiveClient } from '../helpers/live.js';
import { startServer, type TestServer } from '../helpers/server.js';

const API_DOC = new URL('../../docs/api.md', import.meta.url);

/** The JSON code blocks under the heading `title` (down to the next heading of its level). */
function examplesUnder(markdown: string, title: string): Record<string, unknown>[] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => /^#+ /.test(line) && line.replace(/^#+ /, '') === title);
  if (start === -1) throw new Error(`docs/api.md has no heading "${title}"`);
  const level = /^#+/.exec(lines[start] ?? '')?.[0].length ?? 0;
  const end = lines.findIndex(
    (line, index) =>
      index > start && /^#+ /.test(line) && (/^#+/.exec(line)?.[0].length ?? 0) <= level,
  );
  const section = lines.slice(start + 1, end === -1 ? undefined : end).join('\n');
  return [...section.matchAll(/```json\n([\s\S]*?)```/g)].map(
    ([, body]) => JSON.parse(body ?? '') as Record<string, unknown>,
  );
}

/**
 * Fields whose keys are data, not names (a group's section name → maximum): compared as "an
 * object", whatever keys they hold.
 */
const RECORD_FIELDS = new Set(['sectionLimits']);

/** A value's shape: JSON types, with objects' keys and an array's first item (empty: unknown). */
type Shape = string | { [key: string]: Shape } | Shape[];

function shapeOf(value: unknown): Shape {
  if (value === null) return 'null';
  if (Array.isArray(value)) return value.length === 0 ? [] : [shapeOf(value[0])];
  if (typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([key, item]) => [key, RECORD_FIELDS.has(key) ? 'record' : shapeOf(item)]),
    );
  }
  return typeof value === 'number' && Number.isInteger(value) ? 'integer' : typeof value;
}

/** Every key path of a value (`counter.goal`, `changes[].field`), to find undocumented fields. */
function keyPaths(value: unknown, prefix = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((item) => keyPaths(item, `${prefix}[]`));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, item]) => {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    return RECORD_FIELDS.has(key) ? [path] : [path, ...keyPaths(item, path)];
  });
}

/** Groups samples by the value of their discriminating field (`type` or `kind`). */
function byKind(samples: Record<string, unknown>[], field: string): Map<string, unknown[]> {
  const kinds = new Map<string, unknown[]>();
  for (const sample of samples) {
    const kind = String(sample[field]);
    kinds.set(kind, [...(kinds.get(kind) ?? []), sample]);
  }
  return kinds;
}

/** The documented examples that no real sample of their kind has the shape of. */
function examplesWithoutRealTwin(documented: Map<string, unknown[]>, real: Map<string, unknown[]>) {
  const missing: string[] = [];
  for (const [kind, examples] of documented) {
    const realShapes = (real.get(kind) ?? []).map((sample) => JSON.stringify(shapeOf(sample)));
    for (const example of examples) {
      if (!realShapes.includes(JSON.stringify(shapeOf(example)))) {
        missing.push(`${kind}: ${JSON.stringify(shapeOf(example))}`);
      }
    }
  }
  return missing;
}

/** The key paths of real samples that none of the documented examples of their kind has. */
function undocumentedFields(documented: Map<string, unknown[]>, real: Map<string, unknown[]>) {
  const undocumented = new Set<string>();
  for (const [kind, samples] of real) {
    const known = new Set((documented.get(kind) ?? []).flatMap((example) => keyPaths(example)));
    for (const path of samples.flatMap((sample) => keyPaths(sample))) {
      if (!known.has(path)) undocumented.add(`${kind}: ${path}`);
    }
  }
  return [...undocumented].sort();
}

/** Live frames split into units: a `changes` frame gives its changes, other frames themselves. */
function frameUnits(messages: readonly unknown[]) {
  const frames: Record<string, unknown>[] = [];
  const changes: Record<string, unknown>[] = [];
  for (const message of messages as Record<string, unknown>[]) {
    if (message.type === 'changes') changes.push(...(message.changes as Record<string, unknown>[]));
    else frames.push(message);
  }
  return { frames, changes };
}

const markdown = () => fs.readFileSync(API_DOC, 'utf8');
const documentedFrames = () => frameUnits(examplesUnder(markdown(), 'Server frames by example'));
const documentedEntries = () => examplesUnder(markdown(), 'Activity entries by example');

describe('docs/api.md against a real server', () => {
  let server: TestServer;
  let live: LiveClient;
  let entries: ActivityPage['entries'];

  /**
   * One member on the live channel while the group sees every kind of change: over the socket
   * (with operation ids) and over REST (without), a goal reached, a rename, a new order, a group
   * edit, a deletion and the view-only link turned on; then a ping and a refused change.
   */
  beforeAll(async () => {
    server = await startServer({ logLevel: 'warn' });
    const member = await createGroup(server.url);
    const coffees = await member.addCounter({ name: 'Coffees', goal: 2 });

    live = await connectLive(server.wsUrl, member.group.name);
    live.send({
      type: 'auth',
      protocol: PROTOCOL_VERSION,
      key: member.key,
      member: { id: 'browser-ada', name: 'Ada' },
    });
    await live.waitFor(isReady);
    const acks = () => live.messages.filter((message) => message.type === 'ack').length;

    live.send({
      type: 'mutate',
      opId: 'tab3f9a1c2e.1',
      mutation: { kind: 'createCounter', fields: { name: 'Teas' } },
      actor: 'Ada',
    });
    await live.waitUntil(() => acks() === 1);
    live.send({
      type: 'mutate',
      opId: 'tab3f9a1c2e.2',
      mutation: { kind: 'adjustCounter', counterId: coffees.id, direction: 'increment', times: 2 },
      actor: 'Ada',
    });
    await live.waitUntil(() => acks() === 2);

    const counters = await member.counters();
    const teas = counters.find((counter) => counter.name === 'Teas') as Counter;
    const rest = async (method: string, path: string, body?: unknown) => {
      const answer = await call(server.url, method, `${member.base}${path}`, {
        key: member.key,
        ...(body === undefined ? {} : { body }),
        headers: { 'tally-member': 'Grace' },
      });
      expect(answer.status, `${method} ${path}`).toBeLessThan(300);
    };
    await rest('POST', `/counters/${coffees.id}/increment`);
    await rest('PATCH', `/counters/${coffees.id}`, { name: 'Espressos' });
    await rest('PUT', '/order', { counterIds: [teas.id, coffees.id] });
    await rest('PATCH', '', { displayName: 'Game Night' });
    await rest('DELETE', `/counters/${teas.id}`);
    await rest('POST', '/view-key');
    await live.waitUntil(() =>
      live.messages.some(
        (message) =>
          message.type === 'changes' &&
          message.changes.some((change) => change.type === 'group.accessChanged'),
      ),
    );

    live.send({ type: 'ping', t: 1_763_805_600_000 });
    live.send({
      type: 'mutate',
      opId: 'tab3f9a1c2e.3',
      mutation: { kind: 'deleteCounter', counterId: teas.id },
    });
    await live.waitFor((message): message is ServerMessage => message.type === 'pong');
    await live.waitFor((message): message is ServerMessage => message.type === 'error');

    const page = await call<ActivityPage>(server.url, 'GET', `${member.base}/activity`, {
      key: member.key,
    });
    entries = page.body.entries;
    if (process.env.DOCS_TRUTH_DUMP === '1')
      console.log(JSON.stringify({ messages: live.messages, entries }, null, 1));
  });
  afterAll(async () => {
    live.close();
    await server.close();
  });

  it('shows an example of every server frame the scenario received, and of every change type', () => {
    const real = frameUnits(live.messages);
    const realTypes = new Set(real.frames.map((frame) => frame.type));
    expect([...byKind(documentedFrames().frames, 'type').keys()].sort()).toEqual(
      [...realTypes].sort(),
    );
    const realChangeTypes = new Set(real.changes.map((change) => change.type));
    expect([...byKind(documentedFrames().changes, 'type').keys()].sort()).toEqual(
      [...realChangeTypes].sort(),
    );
  });

  it('documents live frames and changes with the keys and types the server sends', () => {
    const real = frameUnits(live.messages);
    const documented = [
      ...documentedFrames().frames,
      ...documentedFrames().changes.map((change) => ({
        ...change,
        type: `change ${String(change.type)}`,
      })),
    ];
    const received = [
      ...real.frames,
      ...real.changes.map((change) => ({ ...change, type: `change ${String(change.type)}` })),
    ];
    const documentedKinds = byKind(documented, 'type');
    const receivedKinds = byKind(received, 'type');
    expect(examplesWithoutRealTwin(documentedKinds, receivedKinds)).toEqual([]);
    expect(undocumentedFields(documentedKinds, receivedKinds)).toEqual([]);
  });

  it('documents a change made over REST without an operation id as carrying no opIds', () => {
    const real = frameUnits(live.messages).changes;
    const deleted = real.find((change) => change.type === 'counter.deleted');
    expect(deleted).toBeDefined();
    expect(deleted).not.toHaveProperty('opIds');
    const documentedDeleted = documentedFrames().changes.find(
      (change) => change.type === 'counter.deleted',
    );
    expect(documentedDeleted).not.toHaveProperty('opIds');
  });

  it('documents activity entries, taps with increments, decrements and reachedGoal, as the log answers them', () => {
    const real = entries as unknown as Record<string, unknown>[];
    const documentedKinds = byKind(documentedEntries(), 'kind');
    const realKinds = byKind(real, 'kind');
    expect([...documentedKinds.keys()].sort()).toEqual([...realKinds.keys()].sort());
    expect(examplesWithoutRealTwin(documentedKinds, realKinds)).toEqual([]);
    expect(undocumentedFields(documentedKinds, realKinds)).toEqual([]);
    expect(documentedKinds.get('counter.adjusted')?.[0]).toMatchObject({
      increments: expect.any(Number) as unknown,
      decrements: expect.any(Number) as unknown,
      reachedGoal: expect.any(Number) as unknown,
    });
  });
});
