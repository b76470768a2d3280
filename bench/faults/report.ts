/**
 * `npm run bench -- --store postgres --instances 2 --fault restart [--runs 3]`: Tally ×2 from
 * dist/ on a PostgreSQL of the benchmark's own (never the machine's shared one: it is restarted),
 * through the fault proxy; 1,000 taps/s in groups of three for 4 s, the fault, 4 s more. Prints,
 * per run and as median (range): taps sent, acknowledged, refused and never answered, the time to
 * detect (first refusal) and to recover (first acknowledgement after the database takes
 * connections again), /api/health's first 503, and the answer p99 before and around the fault.
 * Fails if a tap is never answered, or a counter stores fewer taps than were acknowledged or more
 * than were sent.
 */
import { FAULTS, FaultBed, runFault, type FaultName, type FaultRun } from './scenario.js';

/** 20 groups × 50 taps/s: each tapper stays under the live channel's 100 messages/s per socket. */
const LOAD = { groups: 20, rate: 1_000, beforeMs: 4_000, afterMs: 4_000 };

export function faultName(raw: string): FaultName {
  const name = FAULTS.find((fault) => fault === raw);
  if (!name) throw new Error(`--fault is one of ${FAULTS.join(', ')} (got "${raw}")`);
  return name;
}

const ms = (value: number | null) => (value === null ? '—' : value.toFixed(0));

function summary(values: (number | null)[]): string {
  const known = values.filter((value): value is number => value !== null).sort((a, b) => a - b);
  if (known.length === 0) return '—';
  const median = known[Math.floor((known.length - 1) / 2)] ?? 0;
  const range = known.length > 1 ? ` (${ms(known[0] ?? 0)}–${ms(known.at(-1) ?? 0)})` : '';
  return `${ms(median)}${range}`;
}

/** Whether a run broke a rule: an unanswered tap, or stored outside [acknowledged, sent]. */
export function faultFailures(run: FaultRun): number {
  const counts = run.counters.filter(
    (counter) =>
      counter.stored === null || counter.stored < counter.acked || counter.stored > counter.sent,
  ).length;
  return run.firstAnswers.unanswered + counts + run.exits.length;
}

export async function benchFault(
  fault: FaultName,
  runs: number,
  log: (message: string) => void,
): Promise<number> {
  const results: FaultRun[] = [];
  for (let i = 0; i < runs; i++) {
    log(`fault ${fault}: run ${i + 1} of ${runs}`);
    const bed = await FaultBed.start(false);
    try {
      if (fault === 'failover') await bed.prepareFailover();
      results.push(await runFault(bed, fault, LOAD));
    } finally {
      await bed.stop();
    }
  }
  console.log(
    `\nDatabase fault "${fault}" under ${LOAD.rate.toLocaleString('en-US')} taps/s (groups of 3: taps through instance B, watchers on A), ` +
      `${LOAD.beforeMs / 1_000} s before and ${LOAD.afterMs / 1_000} s after\n`,
  );
  console.log(
    '| run | sent | acked | refused | unanswered | detect ms | recover ms | health 503 ms | p99 before ms | p99 around ms | stored ≥ acked, ≤ sent |',
  );
  console.log('| --: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | :-- |');
  results.forEach((run, index) => {
    const refused = Object.values(run.firstAnswers.refused).reduce((sum, n) => sum + n, 0);
    const held = run.counters.every(
      (counter) =>
        counter.stored !== null &&
        counter.stored >= counter.acked &&
        counter.stored <= counter.sent,
    );
    console.log(
      `| ${index + 1} | ${run.firstAnswers.sent} | ${run.firstAnswers.acked} | ${refused} | ${run.firstAnswers.unanswered} | ` +
        `${ms(run.detectMs)} | ${ms(run.recoverMs)} | ${ms(run.healthDownMs)} | ${ms(run.p99Before)} | ${ms(run.p99Around)} | ` +
        `${held ? 'yes' : 'NO'}${run.exits.length > 0 ? `, ${run.exits.length} instance(s) exited` : ''} |`,
    );
  });
  console.log(
    `\nmedian (range): detect ${summary(results.map((run) => run.detectMs))} ms, recover ${summary(results.map((run) => run.recoverMs))} ms, ` +
      `health 503 after ${summary(results.map((run) => run.healthDownMs))} ms, p99 around the fault ${summary(results.map((run) => run.p99Around))} ms, ` +
      `unanswered ${summary(results.map((run) => run.firstAnswers.unanswered))}`,
  );
  return results.reduce((sum, run) => sum + faultFailures(run), 0);
}
