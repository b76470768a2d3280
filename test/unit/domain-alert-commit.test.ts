/**
 * Alerts in the commit, without a database: a group's rules (in its row) fire for the batch's
 * changes into the outbox writes, once per crossing and naming whose tap crossed; an ended
 * period fires its `periodEnd` rules; rules are added, refused and removed as changes of the
 * group, and a deleted counter takes its rules with it.
 */
import { describe, expect, it } from 'vitest';
import { ALERT_MESSAGES, type AlertEventBody } from '../../src/shared/alerts.js';
import type {
  GroupAlerts,
  StoredAlertRule,
  StoredDestination,
} from '../../src/server/domain/alert-config.js';
import type { Operation } from '../../src/server/domain/operations.js';
import { commit, counterRow, groupRow, tap } from '../helpers/domain.js';

const HOOK: StoredDestination = {
  id: 'hook',
  kind: 'webhook',
  url: 'https://hooks.example.org/tally',
  format: 'standard',
  secret: 'whsec_c2VjcmV0',
  linkBase: 'https://tally.example',
};

function rule(id: string, fields: Partial<StoredAlertRule>): StoredAlertRule {
  return {
    id,
    counterId: null,
    section: null,
    when: { kind: 'goal' },
    to: { kind: 'webhook', url: HOOK.kind === 'webhook' ? HOOK.url : '', format: 'standard' },
    destinationId: HOOK.id,
    createdAt: 0,
    ...fields,
  };
}

const withRules = (...rules: StoredAlertRule[]) => ({
  ...groupRow('g'),
  alerts: { rules, destinations: [HOOK] } satisfies GroupAlerts,
});

const bodies = (result: ReturnType<typeof commit>) =>
  result.writes.alerts.map((write) => JSON.parse(write.body) as AlertEventBody);

describe('domain: alerts in the commit', () => {
  it('fires once per crossing in a run of taps, naming the member whose tap crossed', () => {
    const group = withRules(rule('r', { when: { kind: 'reaches', value: 3 } }));
    const world = { groups: [group], counters: [counterRow('g', 'c', { value: 1 })] };
    const result = commit(world, [
      tap('c', 'increment', { actor: 'Ada' }),
      tap('c', 'increment', { actor: 'Bo' }),
      tap('c', 'increment', { actor: 'Cy' }),
    ]);
    const [body, ...more] = bodies(result);
    expect(more).toEqual([]);
    expect(body).toMatchObject({
      type: 'counter.reached',
      group: 'g',
      counter: { id: 'c', name: 'c', value: 3 },
      by: 'Bo',
      rule: { id: 'r', to: { kind: 'webhook', format: 'standard' } },
    });
    // The rule's URL (a secret) is never in the body.
    expect(result.writes.alerts[0]?.body).not.toContain('hooks.example.org');
    expect(result.writes.alerts[0]?.destinationId).toBe('hook');
  });

  it('costs nothing for a group without rules, and fires nothing for taps on the same side', () => {
    const plain = commit({ groups: [groupRow('g')], counters: [counterRow('g', 'c')] }, [tap('c')]);
    expect(plain.writes.alerts).toEqual([]);
    const group = withRules(rule('r', { when: { kind: 'reaches', value: 1 } }));
    const above = commit({ groups: [group], counters: [counterRow('g', 'c', { value: 5 })] }, [
      tap('c'),
      tap('c'),
    ]);
    expect(above.writes.alerts).toEqual([]);
  });

  it("fires an ended period's periodEnd rules with its total, by no member", () => {
    const group = withRules(rule('p', { counterId: 'd', when: { kind: 'periodEnd' } }));
    const due = counterRow(
      'g',
      'd',
      { value: 7, reset: 'daily', periodStart: '2026-03-09T00:00:00.000Z' },
      { nextResetAt: Date.UTC(2026, 2, 10) },
    );
    const result = commit({ groups: [group], counters: [due] }, [tap('d')]);
    expect(bodies(result)).toEqual([
      expect.objectContaining({
        type: 'counter.period',
        by: null,
        period: {
          start: '2026-03-09T00:00:00.000Z',
          end: '2026-03-10T00:00:00.000Z',
          total: 7,
        },
      }),
    ]);
  });

  it('adds a rule as a change of the group, sharing the destination of the same address', () => {
    const group = withRules(rule('r', {}));
    const added: Operation = {
      groupId: 'g',
      mutation: {
        kind: 'addAlertRule',
        rule: rule('new', { when: { kind: 'every', value: 10 }, destinationId: 'other' }),
        destination: { ...HOOK, id: 'other', secret: 'whsec_b3RoZXI=' },
      },
    };
    const result = commit({ groups: [group], counters: [] }, [added]);
    expect(result.outcomes[0]).toMatchObject({ ok: true, changes: [{ type: 'group.updated' }] });
    const [write] = result.writes.groups;
    expect(write?.alertsChanged).toBe(true);
    expect(write?.alerts.destinations).toEqual([HOOK]);
    expect(write?.alerts.rules.map((stored) => [stored.id, stored.destinationId])).toEqual([
      ['r', 'hook'],
      ['new', 'hook'],
    ]);
  });

  it('refuses an address in another format, a counter of no one, and a rule that is not there', () => {
    const group = withRules(rule('r', {}));
    const world = { groups: [group], counters: [] };
    const slack: Operation = {
      groupId: 'g',
      mutation: {
        kind: 'addAlertRule',
        rule: rule('s', { to: { kind: 'webhook', url: 'x', format: 'slack' } }),
        destination: { ...HOOK, id: 's', format: 'slack', secret: null },
      },
    };
    expect(commit(world, [slack]).outcomes[0]).toEqual({
      ok: false,
      code: 'validation_failed',
      message: ALERT_MESSAGES.formatMismatch('standard'),
    });
    const missingCounter: Operation = {
      groupId: 'g',
      mutation: { kind: 'addAlertRule', rule: rule('m', { counterId: 'nope' }), destination: HOOK },
    };
    expect(commit(world, [missingCounter]).outcomes[0]).toMatchObject({
      ok: false,
      code: 'counter_not_found',
    });
    const removeMissing: Operation = {
      groupId: 'g',
      mutation: { kind: 'removeAlertRule', ruleId: 'nope' },
    };
    expect(commit(world, [removeMissing]).outcomes[0]).toMatchObject({
      ok: false,
      code: 'alert_not_found',
    });
  });

  it("removes a deleted counter's rules, and the destinations no rule uses any more", () => {
    const group = withRules(rule('mine', { counterId: 'c' }));
    const result = commit({ groups: [group], counters: [counterRow('g', 'c')] }, [
      { groupId: 'g', mutation: { kind: 'deleteCounter', counterId: 'c' } },
    ]);
    const [write] = result.writes.groups;
    expect(write?.alertsChanged).toBe(true);
    expect(write?.alerts).toEqual({ rules: [], destinations: [] });
  });
});
