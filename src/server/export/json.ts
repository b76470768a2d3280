/**
 * The JSON export (shared GroupExportSchema), streamed: the activity log is written entry by
 * entry as it is read in pages, so a group with years of history never sits in memory at once.
 */
import { Readable } from 'node:stream';
import type { ActivityEntry, CounterPeriod } from '../../shared/activity.js';
import type { AlertRuleView } from '../../shared/alerts.js';
import type { Counter, Group } from '../../shared/api.js';

export function jsonExportStream(
  {
    group,
    counters,
    alerts,
    chain,
  }: {
    group: Group;
    counters: readonly Counter[];
    /** The group's alert rules, for holders of its access key only (never URLs or secrets). */
    alerts?: readonly AlertRuleView[] | undefined;
    /** Where its activity chain starts and ends (ADR 30), read before the entries. */
    chain: { anchor: string | null; head: string | null };
  },
  /** Each entry with its chain hash (null for one written before the chain). */
  activity: AsyncIterable<ActivityEntry & { hash: string | null }>,
  /** Read after the log (bounded: PERIODS_KEPT_PER_COUNTER per counter). */
  periods: () => Promise<readonly CounterPeriod[]>,
): Readable {
  async function* chunks(): AsyncGenerator<string> {
    const head = JSON.stringify({
      exportedAt: new Date().toISOString(),
      group,
      counters,
      ...(alerts === undefined ? {} : { alerts }),
      chain,
    });
    // The head's closing brace is replaced by the activity array.
    yield `${head.slice(0, -1)},"activity":[`;
    let first = true;
    for await (const entry of activity) {
      yield `${first ? '' : ','}${JSON.stringify(entry)}`;
      first = false;
    }
    yield `],"periods":${JSON.stringify(await periods())}}`;
  }
  return Readable.from(chunks());
}
