/**
 * Sections on the group screen (docs/product.md#sections): counters that name a section are shown
 * together under its heading, with the live sum of their values and, when the section has a
 * maximum, how full it is. Pure functions of the counters as shown (pending taps included), so the
 * subtotal moves with every tap on any of its cards.
 *
 * Placement: a section's block sits where its first counter (in the group's order) is and holds
 * all its counters in order; counters without a section stay where they are, in runs between the
 * blocks. A run after a section has a heading of its own (RunBlock.headed).
 */
import { t } from '@lingui/core/macro';
import type { Counter } from '../../shared/api.js';
import { NEAR_LIMIT_RATIO } from '../../shared/limits.js';
import { sectionMaxOf } from '../../shared/rules.js';
import { formatNumber, numbersInOrder } from '../i18n/format.js';
import { fullText, leftText, nearlyFullText } from './capacity.js';

/** How full something with a maximum is: 'none' without one. */
export type Capacity = 'none' | 'open' | 'near' | 'full';

export interface SectionBlock {
  kind: 'section';
  name: string;
  counters: Counter[];
  /** The sum of its counters' values. */
  total: number;
  /** The section's maximum (capacity across its counters), or null. */
  max: number | null;
  /** Room left below the maximum (never negative), or null without one. */
  remaining: number | null;
  capacity: Capacity;
}

/** Counters without a section, between (or instead of) the section blocks. */
export interface RunBlock {
  kind: 'run';
  counters: Counter[];
  /**
   * A section comes before it: it has a heading of its own ("Counters without a section"), or
   * its counters would read as more of that section's, under a total that leaves them out.
   */
  headed: boolean;
}

export type Block = SectionBlock | RunBlock;

/**
 * 'full' at or past the maximum, 'near' from NEAR_LIMIT_RATIO of it on (Headcounts' yellow at
 * 90 %), else 'open'; 'none' without a maximum.
 */
export function capacityOf(value: number, max: number | null): Capacity {
  if (max === null) return 'none';
  if (value >= max) return 'full';
  return value >= max * NEAR_LIMIT_RATIO ? 'near' : 'open';
}

/** The screen's blocks, in order. Counters are taken as given (already in the group's order). */
export function layoutBlocks(
  counters: readonly Counter[],
  sectionLimits: Readonly<Record<string, number>>,
): Block[] {
  const blocks: Block[] = [];
  const sections = new Map<string, Counter[]>();
  for (const counter of counters) {
    const { section } = counter;
    if (section === null || section === '') {
      const last = blocks.at(-1);
      if (last?.kind === 'run') last.counters.push(counter);
      else blocks.push({ kind: 'run', counters: [counter], headed: blocks.length > 0 });
      continue;
    }
    const members = sections.get(section);
    if (members) {
      members.push(counter);
      continue;
    }
    const block: SectionBlock = {
      kind: 'section',
      name: section,
      counters: [counter],
      total: 0,
      max: null,
      remaining: null,
      capacity: 'none',
    };
    sections.set(section, block.counters);
    blocks.push(block);
  }
  for (const block of blocks) {
    if (block.kind !== 'section') continue;
    block.total = block.counters.reduce((sum, counter) => sum + counter.value, 0);
    const max = Object.hasOwn(sectionLimits, block.name)
      ? sectionMaxOf(sectionLimits, block.name)
      : null;
    block.max = max;
    block.remaining = max === null ? null : Math.max(0, max - block.total);
    block.capacity = capacityOf(block.total, max);
  }
  return blocks;
}

/** True when at least one counter is in a section (the grid then shows blocks). */
export function hasSections(counters: readonly Counter[]): boolean {
  return counters.some((counter) => counter.section !== null && counter.section !== '');
}

const format = formatNumber;

const totalOf = (total: string) => t`total ${total}`;
const totalOfMax = (total: string, max: string, capacity: string) =>
  t`${total} of ${max}, ${capacity}`;

/** What a section's header says about its total, e.g. "total 205" or "205 / 250". */
export function totalText(block: SectionBlock): string {
  return block.max === null
    ? totalOf(format(block.total))
    : numbersInOrder(`${format(block.total)} / ${format(block.max)}`);
}

/** The capacity's words, never colour alone: "45 left", "Nearly full · 20 left", "Full". */
export function capacityText(block: SectionBlock): string | null {
  switch (block.capacity) {
    case 'none':
      return null;
    case 'open':
      return leftText(format(block.remaining ?? 0));
    case 'near':
      return nearlyFullText(format(block.remaining ?? 0));
    case 'full':
      return fullText();
  }
}

/**
 * The header in one sentence, for assistive technology: "Entrances: North 120, South 85, total
 * 205" or "Entrances: 205 of 250, 45 left".
 */
export function sectionSummary(block: SectionBlock): string {
  const parts = block.counters.map(
    (counter) => `${counter.name === '' ? t`Counter Name` : counter.name} ${format(counter.value)}`,
  );
  const total =
    block.max === null
      ? totalOf(format(block.total))
      : totalOfMax(format(block.total), format(block.max), capacityText(block) ?? '');
  return `${block.name}: ${[...parts, total].join(', ')}`;
}

/** How many blocks have a heading: every section, and each run that follows one. */
export function headingsOf(blocks: readonly Block[]): number {
  return blocks.filter((block) => block.kind === 'section' || block.headed).length;
}
