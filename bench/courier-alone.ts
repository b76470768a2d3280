/**
 * The alert courier alone, over time (docs/benchmarks.md#alerts): what one webhook alert costs
 * the process from the courier's first alert until its code is warm, without a server around it.
 *
 *   npx tsx bench/courier-alone.ts [--courier thread|local] [--rate 100] [--seconds 120]
 *
 * The courier (ThreadCourier in its worker thread, or LocalCourier on this thread) sends `standard`
 * webhook alerts to 400 destinations, round robin, at `--rate` a second, to a node:http receiver
 * in another process (204, kept connections). It prints the process's CPU (all its threads: the
 * courier's, V8's helpers) per alert for each 10 s, after subtracting what the same timer loop
 * costs without sending, measured in the same run.
 */
import { fork } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { alertRuleSummary, type AlertEventBody } from '../src/shared/alerts.js';
import { ThreadCourier } from '../src/server/alerts/courier-thread.js';
import { LocalCourier, type Courier } from '../src/server/alerts/courier.js';
import { newWebhookSecret } from '../src/server/alerts/formats.js';
import { int, median } from './stats.js';

const { values } = parseArgs({
  options: {
    courier: { type: 'string', default: 'thread' },
    rate: { type: 'string', default: '100' },
    seconds: { type: 'string', default: '120' },
  },
});
const rate = Number(values.rate);
const seconds = Number(values.seconds);
if (!['thread', 'local'].includes(values.courier) || !(rate > 0) || !(seconds >= 10)) {
  throw new Error('usage: --courier thread|local --rate <alerts/s> --seconds <≥ 10>');
}

const DESTINATIONS = 400;
const SLICE_MS = 10_000;
/** The loop without sending, to subtract, ms. */
const BASELINE_MS = 10_000;

const RECEIVER = `
const http = require('node:http');
const server = http.createServer((request, response) => {
  request.resume();
  request.on('end', () => response.writeHead(204).end());
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.send(server.address().port));
`;

const receiverFile = path.join(tmpdir(), `tally-courier-receiver-${process.pid}.cjs`);
writeFileSync(receiverFile, RECEIVER);
const receiver = fork(receiverFile);
const port = await new Promise<number>((resolve) => receiver.once('message', resolve));

const options = { allowPrivate: true, timeoutMs: 5_000 };
const courier: Courier =
  values.courier === 'thread' ? new ThreadCourier(options) : new LocalCourier(options);
courier.warm();

const secrets = Array.from({ length: DESTINATIONS }, () => newWebhookSecret());
const rule = alertRuleSummary({
  id: 'rule-1',
  counterId: null,
  section: null,
  when: { kind: 'every', value: 10 },
  to: { kind: 'webhook', url: 'https://hooks.example/alerts', format: 'standard' },
});
let sent = 0;
let failed = 0;

function send(): Promise<void> {
  const destination = sent % DESTINATIONS;
  sent += 1;
  const event: AlertEventBody = {
    type: 'counter.every',
    group: `group-${destination}`,
    by: 'Ada',
    at: new Date().toISOString(),
    counter: { id: 'c1', name: 'Visitors', value: sent * 10 },
    rule,
    multiple: sent * 10,
  };
  return courier
    .webhook({
      key: `group-${destination}/destination`,
      attempt: {
        id: `alert_${sent}`,
        event,
        groupName: `Group ${destination}`,
        groupUrl: `https://tally.example/group-${destination}`,
        target: {
          format: 'standard',
          url: `http://127.0.0.1:${port}/hook/${destination}`,
          secret: secrets[destination] ?? '',
        },
      },
    })
    .then(
      (result) => {
        if (!result.ok) failed += 1;
      },
      () => {
        failed += 1;
      },
    );
}

const cpuMicros = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return used.user + used.system;
};

/** Runs the timer loop for `ms`, calling `each` `rate` times a second; CPU µs of each 10 s. */
async function loop(ms: number, each: () => void): Promise<number[]> {
  const interval = 1_000 / rate;
  const start = performance.now();
  let next = start;
  let sliceStart = start;
  let cpu = process.cpuUsage();
  const slices: number[] = [];
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (next <= now) {
        each();
        next += interval;
      }
      if (now - sliceStart >= SLICE_MS) {
        slices.push(cpuMicros(cpu));
        cpu = process.cpuUsage();
        sliceStart = now;
      }
      if (now - start >= ms) resolve();
      else setTimeout(tick, interval);
    };
    tick();
  });
  return slices;
}

// One alert first: the courier's start (its worker's, and loading its modules) is not measured.
await send();
const slices = await loop(seconds * 1_000, () => void send());
// The baseline comes last: the seconds right after a start are busier than the loop's own cost.
await new Promise((resolve) => setTimeout(resolve, 2_000));
const baseline = median(await loop(BASELINE_MS, () => undefined));
const perSlice = (rate * SLICE_MS) / 1_000;
console.log(
  `courier: ${values.courier}, ${rate} alerts/s to ${DESTINATIONS} destinations; baseline (the loop without sending) ${int(baseline)} µs per 10 s`,
);
console.log('seconds | process CPU µs per alert');
slices.forEach((micros, index) => {
  console.log(`${(index + 1) * 10} | ${int((micros - baseline) / perSlice)}`);
});
console.log(`${sent} alerts sent, ${failed} failed`);
await courier.close();
receiver.kill();
