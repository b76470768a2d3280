/**
 * Sections on the group screen (src/web/lib/sections.ts): where each section's block goes, its
 * live subtotal, and how full it reads against its maximum.
 */
import { describe, expect, it } from 'vitest';
import type { Counter } from '../../src/shared/api.js';
import {
  capacityOf,
  capacityText,
  hasSections,
  headingsOf,
  layoutBlocks,
  sectionSummary,
  totalText,
  type Block,
  type SectionBlock,
} from '../../src/web/lib/sections.js';

function counter(name: string, value: number, section: string | null = null): Counter {
  return {
    id: name.toLowerCase(),
    name,
    description: '',
    value,
    incrementStep: 1,
    decrementStep: 1,
    thumbnailUrl: null,
    goal: null,
    min: null,
    max: null,
    reset: null,
    startValue: 0,
    section,
    periodStart: null,
    allTime: value,
    createdAt: '2026-01-01T00:00:00.000Z',
    version: 1,
  };
}

/** Each block as "[Section: names]" or "names" for a run, to read the layout at a glance. */
const shape = (blocks: Block[]) =>
  blocks.map((block) => {
    const names = block.counters.map((c) => c.name).join(' ');
    return block.kind === 'section' ? `[${block.name}: ${names}]` : names;
  });

const onlySection = (blocks: Block[]): SectionBlock => {
  const block = blocks.find((candidate) => candidate.kind === 'section');
  if (!block) throw new Error('no section block');
  return block;
};

describe('layoutBlocks', () => {
  it('keeps counters without a section in one run, in their order', () => {
    const blocks = layoutBlocks([counter('A', 1), counter('B', 2)], {});
    expect(shape(blocks)).toEqual(['A B']);
    expect(hasSections([counter('A', 1)])).toBe(false);
  });

  it('puts a section where its first counter is and gathers all its counters there, in order', () => {
    const blocks = layoutBlocks(
      [
        counter('X', 0),
        counter('North', 120, 'Entrances'),
        counter('Y', 0),
        counter('Bar', 3, 'Drinks'),
        counter('South', 85, 'Entrances'),
        counter('Z', 0),
      ],
      {},
    );
    expect(shape(blocks)).toEqual(['X', '[Entrances: North South]', 'Y', '[Drinks: Bar]', 'Z']);
  });

  it('joins the counters without a section that no block separates any more into one run', () => {
    // South's place is taken by the Entrances block: Y and Z are next to each other on screen.
    const blocks = layoutBlocks(
      [
        counter('North', 1, 'Entrances'),
        counter('Y', 0),
        counter('South', 1, 'Entrances'),
        counter('Z', 0),
      ],
      {},
    );
    expect(shape(blocks)).toEqual(['[Entrances: North South]', 'Y Z']);
  });

  it('gives a heading to each run of counters without a section that follows a section, not to the first', () => {
    const blocks = layoutBlocks(
      [
        counter('X', 0),
        counter('North', 1, 'Entrances'),
        counter('Y', 0),
        counter('Bar', 1, 'Drinks'),
      ],
      {},
    );
    expect(blocks.map((block) => (block.kind === 'run' ? block.headed : 'section'))).toEqual([
      false,
      'section',
      true,
      'section',
    ]);
    // The display makes room for every heading: two sections and the run between them.
    expect(headingsOf(blocks)).toBe(3);
    expect(headingsOf(layoutBlocks([counter('A', 1), counter('B', 2)], {}))).toBe(0);
  });

  it('treats a blank section name as none', () => {
    expect(shape(layoutBlocks([counter('A', 1, ''), counter('B', 1)], {}))).toEqual(['A B']);
  });

  it('sums the values of a section, negative ones included', () => {
    const block = onlySection(
      layoutBlocks(
        [
          counter('North', 120, 'Entrances'),
          counter('South', 85, 'Entrances'),
          counter('Refunds', -5, 'Entrances'),
        ],
        {},
      ),
    );
    expect(block.total).toBe(200);
    expect(block.max).toBeNull();
    expect(block.capacity).toBe('none');
    expect(totalText(block)).toBe('total 200');
    expect(capacityText(block)).toBeNull();
  });

  it('reads a section with a maximum as capacity: room left, nearly full, full', () => {
    const at = (north: number) =>
      onlySection(
        layoutBlocks([counter('North', north, 'Hall'), counter('South', 50, 'Hall')], {
          Hall: 250,
          Other: 3,
        }),
      );
    const open = at(155);
    expect([open.total, open.max, open.remaining, open.capacity]).toEqual([205, 250, 45, 'open']);
    expect(totalText(open)).toBe('205 / 250');
    expect(capacityText(open)).toBe('45 left');

    const near = at(175);
    expect(near.capacity).toBe('near');
    expect(capacityText(near)).toBe('Nearly full · 25 left');

    const full = at(200);
    expect(full.capacity).toBe('full');
    expect(full.remaining).toBe(0);
    expect(capacityText(full)).toBe('Full');

    // Past the maximum (it was lowered, or values were set by hand): full, never negative room.
    const over = at(300);
    expect(over.remaining).toBe(0);
    expect(over.capacity).toBe('full');
  });

  it('says the whole header in one sentence for assistive technology', () => {
    const plain = onlySection(
      layoutBlocks([counter('North', 120, 'Entrances'), counter('South', 85, 'Entrances')], {}),
    );
    expect(sectionSummary(plain)).toBe('Entrances: North 120, South 85, total 205');
    const capped = onlySection(
      layoutBlocks([counter('North', 1200, 'Entrances'), counter('South', 850, 'Entrances')], {
        Entrances: 2500,
      }),
    );
    expect(sectionSummary(capped)).toBe(
      'Entrances: North 1,200, South 850, 2,050 of 2,500, 450 left',
    );
  });
});

describe('capacityOf', () => {
  it('turns near at 90 % of the maximum and full at the maximum', () => {
    expect(capacityOf(5, null)).toBe('none');
    expect(capacityOf(89, 100)).toBe('open');
    expect(capacityOf(90, 100)).toBe('near');
    expect(capacityOf(99, 100)).toBe('near');
    expect(capacityOf(100, 100)).toBe('full');
    expect(capacityOf(0, 0)).toBe('full');
  });
});
