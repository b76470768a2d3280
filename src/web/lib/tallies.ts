/**
 * The "By member" leaderboard (docs/product.md#per-member-tallies): GET …/tallies rows (one per
 * member and counter) summed per member, ranked by net. Pure: unit-tested in
 * test/unit/web-tallies.test.ts.
 */
import type { Tally } from '../../shared/api.js';

export interface LeaderRow {
  /** 1 for the largest net; members with the same net share a rank ("1, 2, 2, 4"). */
  rank: number;
  member: string;
  increments: number;
  decrements: number;
  net: number;
}

/**
 * One row per member: their rows summed (of one counter when `counterId` is given, else of all),
 * largest net first, then most added, then by name; members who did nothing there are left out.
 * The server answers at most TALLIES_MAX_ROWS (1,000) member × counter rows, largest net first:
 * a group past that many sees its smallest contributions left out of the whole-group sums.
 */
export function leaderboard(rows: readonly Tally[], counterId: string | null = null): LeaderRow[] {
  const byMember = new Map<string, Omit<LeaderRow, 'rank'>>();
  for (const row of rows) {
    if (counterId !== null && row.counterId !== counterId) continue;
    const sum = byMember.get(row.member) ?? {
      member: row.member,
      increments: 0,
      decrements: 0,
      net: 0,
    };
    sum.increments += row.increments;
    sum.decrements += row.decrements;
    sum.net += row.net;
    byMember.set(row.member, sum);
  }
  const sorted = [...byMember.values()]
    .filter((row) => row.increments !== 0 || row.decrements !== 0)
    .sort(
      (a, b) =>
        b.net - a.net ||
        b.increments - a.increments ||
        a.member.localeCompare(b.member, 'en') ||
        (a.member < b.member ? -1 : a.member > b.member ? 1 : 0),
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
  const digits = Math.abs(net).toLocaleString('en-US');
  return net < 0 ? `\u2212${digits}` : `+${digits}`;
}
