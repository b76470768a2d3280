/**
 * `npm run bench:notify`: where PostgreSQL's LISTEN/NOTIFY binds (docs/scaling.md).
 *
 * A transaction that called pg_notify takes a database-wide lock while it commits, so committing
 * transactions that notify are serialised, whatever the number of connections. This measures
 * committed transactions per second with C connections in parallel (each: BEGIN, an UPDATE of its
 * own row, optionally pg_notify with a payload of B bytes, COMMIT), with and without the notify,
 * and with one LISTENer receiving everything. A Tally batch is one such transaction, so the
 * ceiling is the most batches per second all instances together can commit.
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';

const { values } = parseArgs({
  options: {
    url: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/test' },
    seconds: { type: 'string', default: '3' },
    payload: { type: 'string', default: '1000' },
    connections: { type: 'string', default: '1,2,4,8,16' },
    runs: { type: 'string', default: '3' },
  },
});
const url = values.url;
const durationMs = Number(values.seconds) * 1000;
const payloadBytes = Number(values.payload);
const connectionCounts = values.connections.split(',').map(Number);
const runs = Number(values.runs);
const schema = `notify_bench_${process.pid}`;
const channel = `${schema}_changes`;

async function connect(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
  await client.connect();
  return client;
}

/** Committed transactions per second with `connections` in parallel for durationMs. */
async function measure(connections: number, notify: boolean): Promise<number> {
  const clients = await Promise.all(Array.from({ length: connections }, connect));
  const payload = 'x'.repeat(payloadBytes);
  let committed = 0;
  const deadline = Date.now() + durationMs;
  await Promise.all(
    clients.map(async (client, index) => {
      while (Date.now() < deadline) {
        await client.query('BEGIN');
        await client.query('UPDATE rows SET n = n + 1 WHERE id = $1', [index]);
        if (notify) await client.query('SELECT pg_notify($1, $2)', [channel, payload]);
        await client.query('COMMIT');
        committed += 1;
      }
    }),
  );
  await Promise.all(clients.map((client) => client.end()));
  return committed / (durationMs / 1000);
}

const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];

async function main(): Promise<void> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.query(`CREATE TABLE ${schema}.rows (id int PRIMARY KEY, n bigint NOT NULL)`);
  await admin.query(`INSERT INTO ${schema}.rows SELECT g, 0 FROM generate_series(0, 63) AS g`);
  const listener = await connect();
  let heard = 0;
  listener.on('notification', () => {
    heard += 1;
  });
  await listener.query(`LISTEN ${channel}`);
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  console.log(
    `machine: ${cpu} × ${os.cpus().length}; load average ${os
      .loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}`,
  );
  console.log(
    `payload ${payloadBytes} bytes, ${durationMs / 1000} s per point, median (range) of ${runs} runs`,
  );
  console.log('| connections | commits/s without NOTIFY | commits/s with NOTIFY | ratio |');
  console.log('|---:|---:|---:|---:|');
  try {
    for (const connections of connectionCounts) {
      const plain: number[] = [];
      const notified: number[] = [];
      for (let run = 0; run < runs; run += 1) {
        plain.push(await measure(connections, false));
        notified.push(await measure(connections, true));
      }
      const cell = (list: number[]) =>
        `${Math.round(median(list) ?? 0)} (${Math.round(Math.min(...list))}–${Math.round(Math.max(...list))})`;
      const ratio = (median(notified) ?? 0) / (median(plain) ?? 1);
      console.log(`| ${connections} | ${cell(plain)} | ${cell(notified)} | ${ratio.toFixed(2)} |`);
    }
  } finally {
    console.log(
      `notifications heard by the listener: ${heard}; load average ${os
        .loadavg()
        .map((n) => n.toFixed(2))
        .join(' ')}`,
    );
    await listener.end();
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  }
}

await main();
