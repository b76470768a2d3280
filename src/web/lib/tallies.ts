/**
 * The "By member" leaderboard (docs/product.md#per-member-tallies): GET …/tallies rows (one per
 * member, tap link and counter; or, grouped by link, one per link and counter) summed per member
 * and link, ranked by net. Pure: unit-tested in test/unit/web-tallies.test.ts and
 * test/unit/web-tap-links.test.ts.
 */
import { t } from '@lingui/core/macro';
import type { Tally } from '../../shared/api.js';
import { formatNumber } from '../i18n/format.js';
import { memberName } from './member-name.js';

export interface LeaderRow {
  /** 1 for the largest net; members with the same net share a rank ("1, 2, 2, 4"). */
  rank: number;
  member: string;
  /** The tap link the taps were made through; absent for the group's own link. */
  link?: string;
  increments: number;
  decrements: number;
  net: number;
}

/** How the board groups taps: per member (and the tap link they used), or per link. */
export type TallyGrouping = 'member' | 'link';

/**
 * Who a row is: "Ada", "Ada · Gate B" (a member's taps through a tap link); grouped by link, the
 * link's label, or "Full access link" for taps made with the group's own link.
 */
export function leaderName(row: Pick<LeaderRow, 'member' | 'link'>, by: TallyGrouping): string {
  if (by === 'link') return row.link ?? t`Full access link`;
  const member = row.member ? memberName(row.member) : t`Guest`;
  return row.link === undefined ? member : `${member} · ${row.link}`;
}

/**
 * One row per member and link: their rows summed (of one counter when `counterId` is given, else of all),
 * largest net first, then most added, then by name; members who did nothing there are left out.
 * The server answers at most TALLIES_MAX_ROWS (1,000) member × counter rows, largest net first:
 * a group past that many sees its smallest contributions left out of the whole-group sums.
 */
export function leaderboard(rows: readonly Tally[], counterId: string | null = null): LeaderRow[] {
  const byMember = new Map<string, Omit<LeaderRow, 'rank'>>();
  for (const row of rows) {
    if (counterId !== null && row.counterId !== counterId) continue;
    // A member's taps through a tap link are a row of their own ("Ada · Gate B").
    const key = row.link === null ? `${row.member}\n` : `${row.member}\n${row.link}\n`;
    const sum = byMember.get(key) ?? {
      member: row.member,
      ...(row.link === null ? {} : { link: row.link }),
      increments: 0,
      decrements: 0,
      net: 0,
    };
    sum.increments += row.increments;
    sum.decrements += row.decrements;
    sum.net += row.net;
    byMember.set(key, sum);
  }
  const sorted = [...byMember.values()]
    .filter((row) => row.increments !== 0 || row.decrements !== 0)
    .sort(
      (a, b) =>
        b.net - a.net ||
        b.increments - a.increments ||
        a.member.localeCompare(b.member, 'en') ||
        (a.member < b.member ? -1 : a.member > b.member ? 1 : 0) ||
        (a.link ?? '').localeCompare(b.link ?? '', 'en'),
    );
  let rank = 0;
  return sorted.map((row, index) => {
    if (index === 0 || sorted[index - 1]?.net !== row.net) rank = index + 1;
    return { rank, ...row };
  });
}

/** "+3", "−2" (a real minus sign), "0". */
export function signedNet(net: number): string {
  if (net === 0) return '0';
  const digits = formatNumber(Math.abs(net));
  return net < 0 ? `\u2212${digits}` : `+${digits}`;
}
