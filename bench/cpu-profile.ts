/**
 * Summarises a V8 CPU profile of the server (`node --cpu-prof`, e.g. through
 * TALLY_BENCH_NODE_OPTIONS), cut to a tapping window: top functions by self time, with dist/
 * positions mapped back to src/ through the build's source maps, self time by category, and
 * top-down (inclusive) shares of the parts of the hot path.
 *
 *   TALLY_BENCH_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=.tmp/prof" \
 *     npm run bench -- --preset full --scenarios hotpath --only tally --rates 5000
 *   npx tsx bench/cpu-profile.ts .tmp/prof/CPU.*.cpuprofile --from <µs> --to <µs>
 *
 * The window's bounds are the monotonic µs the hot path logs for each rate ("window a–b µs"):
 * V8 stamps profile samples on the same clock. Several files (the main thread and its workers)
 * are summarised one after the other.
 */
import fs from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { parseArgs } from 'node:util';

interface CallFrame {
  functionName: string;
  url: string;
  /** 0-based. */
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const ROOT = path.resolve(import.meta.dirname, '..');
const maps = new Map<string, SourceMap | null>();

/** The src/ position of a dist/ frame (through its .js.map), else the frame's own. */
function where(frame: CallFrame): string {
  if (frame.url === '') return '(native)';
  let file = frame.url.startsWith('file://') ? fileURLToPath(frame.url) : frame.url;
  let line = frame.lineNumber + 1;
  if (file.endsWith('.js') && file.includes(`${path.sep}dist${path.sep}`)) {
    let map = maps.get(file);
    if (map === undefined) {
      try {
        map = new SourceMap(JSON.parse(fs.readFileSync(`${file}.map`, 'utf8')) as SourceMapPayload);
      } catch {
        map = null;
      }
      maps.set(file, map);
    }
    const entry = map?.findEntry(frame.lineNumber, frame.columnNumber);
    if (entry && 'originalSource' in entry && entry.originalSource) {
      file = path.resolve(path.dirname(file), entry.originalSource);
      line = entry.originalLine + 1;
    }
  }
  const nodeModules = file.lastIndexOf('node_modules/');
  const shown =
    nodeModules >= 0
      ? file.slice(nodeModules)
      : file.startsWith(ROOT)
        ? path.relative(ROOT, file)
        : file;
  return `${shown}:${line}`;
}

/** Natives that write to or read from sockets (libuv stream calls and string encoding). */
const SOCKET_NATIVES = new Set([
  'writev',
  'writeUtf8String',
  'writeBuffer',
  'writeLatin1String',
  'writeAsciiString',
  'shutdown',
]);

/** The category of a sample's own (leaf) frame; a native takes its caller's for context. */
function selfCategory(stack: CallFrame[]): string {
  const leaf = stack[0];
  if (!leaf) return 'other';
  const name = leaf.functionName;
  if (name === '(garbage collector)') return 'GC';
  if (name === '(idle)') return 'idle';
  if (name === '(program)') return 'V8/native, unattributed ((program))';
  if (leaf.url === '') {
    if (name === 'parse' || name === 'stringify') return `JSON.${name} (native)`;
    if (SOCKET_NATIVES.has(name)) return 'socket writes (native writev etc.)';
    if (name === 'utf8Slice' || name === 'isUtf8') return 'Buffer decode (utf8Slice, isUtf8)';
    if (name.startsWith('RegExp:')) return 'RegExp';
    const caller = stack.find((frame) => frame.url !== '');
    return `native ${name}() from ${caller ? fileCategory(caller.url) : '?'}`;
  }
  return fileCategory(leaf.url);
}

/** A frame's category by its file. */
function fileCategory(url: string): string {
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (modules) return modules[1] === 'better-sqlite3' ? 'better-sqlite3 (JS)' : (modules[1] ?? '');
  if (url.startsWith('node:')) {
    if (/node:(net|stream|internal\/stream|internal\/streams)/.test(url)) return 'node streams/net';
    return 'node internals';
  }
  const server = /dist\/server\/(.+)\.js$/.exec(url);
  if (server) return `src/server/${server[1] ?? ''}`;
  const shared = /dist\/shared\/(.+)\.js$/.exec(url);
  if (shared) return `src/shared/${shared[1] ?? ''}`;
  return url === '' ? '(native)' : 'other';
}

/**
 * Top-down categories: a sample counts for each whose test matches any frame of its stack (so
 * they overlap: a commit's JSON counts for both).
 */
const INCLUSIVE: { label: string; test: (frame: CallFrame) => boolean }[] = [
  { label: 'GC', test: (f) => f.functionName === '(garbage collector)' },
  {
    label: 'JSON.parse / JSON.stringify (native)',
    test: (f) => f.url === '' && (f.functionName === 'parse' || f.functionName === 'stringify'),
  },
  { label: 'ws (all of node_modules/ws)', test: (f) => f.url.includes('node_modules/ws/') },
  {
    label: 'ws sending (Sender, socket.send)',
    test: (f) =>
      f.url.includes('node_modules/ws/lib/sender') ||
      (f.url.includes('node_modules/ws/lib/websocket.js') && f.functionName === 'send'),
  },
  {
    label: 'ws receiving (Receiver, frame parsing, message event)',
    test: (f) => f.url.includes('node_modules/ws/lib/receiver'),
  },
  {
    label: 'socket writes (writev, writeUtf8String …)',
    test: (f) => f.url === '' && SOCKET_NATIVES.has(f.functionName),
  },
  { label: 'live: corked writes (live/corked.ts)', test: (f) => f.url.includes('/live/corked') },
  { label: 'live hub (live/hub.ts)', test: (f) => f.url.includes('/live/hub') },
  { label: 'live channel (live/channel.ts)', test: (f) => f.url.includes('/live/channel') },
  { label: 'zod', test: (f) => f.url.includes('node_modules/zod/') },
  { label: 'batcher (batcher.ts)', test: (f) => f.url.includes('dist/server/batcher') },
  { label: 'commit algorithm (store/commit.ts)', test: (f) => f.url.includes('/store/commit.js') },
  {
    label: 'SQLite store (store/sqlite/store.ts)',
    test: (f) => f.url.includes('/store/sqlite/store.js'),
  },
  {
    label: 'better-sqlite3 statements (run/get/all/iterate, native)',
    test: (f) => f.url === '' && ['run', 'get', 'all', 'iterate', 'exec'].includes(f.functionName),
  },
  { label: 'activity log (store/activity.ts)', test: (f) => f.url.includes('/store/activity') },
  { label: 'batch planning (store/batch.ts)', test: (f) => f.url.includes('/store/batch') },
  { label: 'core service (core/*)', test: (f) => f.url.includes('dist/server/core/') },
  {
    label: 'metrics (metrics/*, prom-client)',
    test: (f) => /server\/metrics\/|prom-client/.test(f.url),
  },
  {
    label: 'logging (pino, logger.ts)',
    test: (f) => /node_modules\/pino|server\/logger/.test(f.url),
  },
  { label: 'fastify', test: (f) => f.url.includes('node_modules/fastify/') },
  {
    label: 'setImmediate callbacks (batch flush, uncork)',
    test: (f) => f.url.includes('internal/timers') && f.functionName === 'processImmediate',
  },
  {
    label: 'socket reads (onStreamRead)',
    test: (f) => f.functionName === 'onStreamRead',
  },
  { label: 'uncork (corked.ts uncorkAll)', test: (f) => f.functionName === 'uncorkAll' },
];

function summarise(file: string, from: number, to: number, top: number): string {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parent.set(child, node.id);
  const stacks = new Map<number, CallFrame[]>();
  const stackOf = (id: number): CallFrame[] => {
    let stack = stacks.get(id);
    if (!stack) {
      stack = [];
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        const node = byId.get(at);
        if (node && node.callFrame.functionName !== '(root)') stack.push(node.callFrame);
      }
      stacks.set(id, stack);
    }
    return stack;
  };
  const self = new Map<string, number>();
  const categories = new Map<string, number>();
  const inclusive = new Map<string, number>();
  /** Inclusive time of Tally's own functions (src/), each counted once per sample. */
  const functions = new Map<string, number>();
  let time = profile.startTime;
  let busy = 0;
  let idle = 0;
  let weight = 0;
  profile.samples.forEach((id, index) => {
    time += profile.timeDeltas[index] ?? 0;
    if (time < from || time > to) return;
    // A sample stands for the time until the next one.
    const micros = profile.timeDeltas[index + 1] ?? 0;
    const stack = stackOf(id);
    const category = selfCategory(stack);
    if (category === 'idle') {
      idle += micros;
      return;
    }
    busy += micros;
    weight += 1;
    categories.set(category, (categories.get(category) ?? 0) + micros);
    const leaf = stack[0];
    if (leaf) {
      const key = `${leaf.functionName || '(anonymous)'} ${where(leaf)}`;
      self.set(key, (self.get(key) ?? 0) + micros);
    }
    for (const { label, test } of INCLUSIVE) {
      if (stack.some(test)) inclusive.set(label, (inclusive.get(label) ?? 0) + micros);
    }
    const seen = new Set<string>();
    for (const frame of stack) {
      if (!/\/dist\/(server|shared)\//.test(frame.url)) continue;
      const key = `${frame.functionName || '(anonymous)'} ${where(frame)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      functions.set(key, (functions.get(key) ?? 0) + micros);
    }
  });
  const window = Math.min(to, profile.endTime) - Math.max(from, profile.startTime);
  const pct = (micros: number) => `${((100 * micros) / Math.max(busy, 1)).toFixed(1)} %`;
  const ranked = (map: Map<string, number>, n: number) =>
    [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, n);
  // Keys are "name where": a name may hold spaces (RegExp sources), a position never does.
  const functionRows = (map: Map<string, number>) =>
    ranked(map, top).map(([key, micros], index) => {
      const space = key.lastIndexOf(' ');
      return `| ${index + 1} | ${pct(micros)} | ${key.slice(0, space)} | ${key.slice(space + 1)} |`;
    });
  const lines = [
    `### ${path.basename(file)}`,
    '',
    `window ${(window / 1e6).toFixed(2)} s: busy ${(busy / 1e6).toFixed(2)} s (${((100 * busy) / Math.max(window, 1)).toFixed(0)} % of one core), idle ${(idle / 1e6).toFixed(2)} s, ${weight} busy samples; shares below are of busy time`,
    '',
    `Top ${top} functions by self time:`,
    '',
    '| # | self | function | where |',
    '| --- | --- | --- | --- |',
    ...functionRows(self),
    '',
    'Self time by category:',
    '',
    '| category | self |',
    '| --- | --- |',
    ...ranked(categories, 25).map(([label, micros]) => `| ${label} | ${pct(micros)} |`),
    '',
    `Top ${top} of Tally's own functions by inclusive time (callees included):`,
    '',
    '| # | inclusive | function | where |',
    '| --- | --- | --- | --- |',
    ...functionRows(functions),
    '',
    'Top-down (inclusive: time with such a frame anywhere on the stack; categories overlap):',
    '',
    '| part | inclusive |',
    '| --- | --- |',
    ...ranked(inclusive, INCLUSIVE.length).map(
      ([label, micros]) => `| ${label} | ${pct(micros)} |`,
    ),
    '',
  ];
  return lines.join('\n');
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    from: { type: 'string', default: '0' },
    to: { type: 'string', default: String(Number.MAX_SAFE_INTEGER) },
    top: { type: 'string', default: '20' },
  },
});
if (positionals.length === 0) {
  throw new Error(
    'usage: tsx bench/cpu-profile.ts <file.cpuprofile>… [--from µs] [--to µs] [--top n]',
  );
}
for (const file of positionals) {
  console.log(summarise(file, Number(values.from), Number(values.to), Number(values.top)));
}
