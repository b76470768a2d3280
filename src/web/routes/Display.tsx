/**
 * Display mode: /{group}/display?key=… for a projector or TV. Every counter's name and value in
 * a grid that fills the screen (lib/display.ts sizes it), in the group screen's order and sections
 * (each section's tiles under a heading with its total), with goal progress and capacity when set. Read only: no editing controls, no presence (this tab joins the live
 * connection without a member entry, so no name is listed), live and reconnecting by itself
 * through the group screen's own store.
 */
import { t } from '@lingui/core/macro';
import { useLingui } from '@lingui/react/macro';
import { useEffect, useLayoutEffect, useState, useSyncExternalStore } from 'react';
import type { Counter } from '../../shared/api.js';
import { loadingGroup } from '../i18n/messages.js';
import { PaceLine } from '../components/PaceLine.js';
import { TopBar } from '../components/TopBar.js';
import { capacityOf, goalProgress } from '../lib/capacity.js';
import {
  DETAIL_LINE,
  detailLines,
  displayLayout,
  GAP_PX,
  NAME_LINE,
  tileHeight,
  SECTION_FONT_PX,
  SECTION_PX,
  VALUE_LINE,
  widestValue,
  type DisplayLayout,
} from '../lib/display.js';
import { capacityText, headingsOf, layoutBlocks, totalText } from '../lib/sections.js';
import type { GroupStore } from '../live/groupStore.js';
import { AccessDenied } from './group/Notices.js';
import { Pending, Shell } from './group/Page.js';
import { useGroupAccess } from './group/useGroupAccess.js';
import { formatNumber, numbersInOrder } from '../i18n/format.js';

/** The display joins the live channel without a member entry: it is not listed in 'Here now'. */
const noMember = () => null;

export function DisplayScreen({
  rawName,
  accessKey,
}: {
  rawName: string;
  accessKey: string | null;
}) {
  const { t } = useLingui();
  const access = useGroupAccess(rawName, accessKey, { member: noMember });
  if (access.phase === 'loading' || access.phase === 'offline') {
    return (
      <Shell>
        {/* A group already known is granted before this frame is painted. */}
        {access.phase === 'loading' && access.answered === true ? null : (
          <Pending>{access.phase === 'offline' ? t`Reconnecting…` : loadingGroup()}</Pending>
        )}
      </Shell>
    );
  }
  if (access.phase === 'denied') return <AccessDenied message={access.message} />;
  return <DisplayView store={access.store} />;
}

function useViewport(): { width: number; height: number } {
  const [size, setSize] = useState(() => ({
    width: window.innerWidth,
    height: window.innerHeight,
  }));
  useEffect(() => {
    const onResize = () => {
      setSize({ width: window.innerWidth, height: window.innerHeight });
    };
    window.addEventListener('resize', onResize);
    return () => {
      window.removeEventListener('resize', onResize);
    };
  }, []);
  return size;
}

const format = formatNumber;

function statusText(status: 'live' | 'connecting' | 'offline'): string {
  if (status === 'live') return t`Live`;
  return status === 'connecting' ? t`Connecting…` : t`Reconnecting…`;
}

function DisplayView({ store }: { store: GroupStore }) {
  const { t } = useLingui();
  const state = useSyncExternalStore(store.subscribe, store.getState);
  const { group } = state;
  const viewport = useViewport();

  const screenName = t`Display`;
  useEffect(() => {
    document.title = `${group.displayName} · ${screenName} · Tally`;
  }, [group.displayName, screenName]);

  const counters = state.counters ?? [];
  // The group screen's blocks, in its order: a section's tiles together under its heading.
  const blocks = layoutBlocks(counters, group.sectionLimits);
  const sectioned = blocks.some((block) => block.kind === 'section');
  const lines = Math.max(1, ...counters.map(detailLines));
  const layout = displayLayout(viewport, {
    count: counters.length,
    digits: widestValue(counters.map((counter) => counter.value)),
    lines,
    blocks: blocks.map((block) => block.counters.length),
    headings: headingsOf(blocks),
    nameChars: Math.max(0, ...counters.map((counter) => nameOf(counter).length)),
  });
  const nameSize = useFittedNames(layout.nameSize, counters);
  const rows = blocks.reduce(
    (sum, block) => sum + Math.ceil(block.counters.length / layout.columns),
    0,
  );
  const headings = headingsOf(blocks);
  const tiles = {
    ...layout,
    nameSize,
    lines,
    height: tileHeight(layout, viewport.height, { rows, headings, lines }),
  };

  // The key stopped working (replaced, turned off, a tap link revoked): say so, in its words.
  if (state.fatal !== null) return <AccessDenied message={state.fatal} />;

  return (
    <div className="flex min-h-dvh flex-col bg-white text-zinc-900 dark:bg-zinc-950 dark:text-zinc-50">
      <TopBar wide label={false}>
        <h1 className="min-w-0 truncate text-xl font-bold sm:text-2xl">{group.displayName}</h1>
        <p
          role="status"
          data-testid="display-status"
          className="ms-auto shrink-0 text-base font-medium text-zinc-700 sm:text-lg dark:text-zinc-300"
        >
          {statusText(state.status)}
        </p>
      </TopBar>
      <main
        data-testid="display"
        className="flex flex-1 flex-col"
        style={{ padding: `${GAP_PX / 2}px`, gap: `${GAP_PX}px` }}
      >
        {state.counters === null ? (
          <Pending>{t`Loading counters...`}</Pending>
        ) : counters.length === 0 ? (
          <p className="flex flex-1 items-center justify-center text-3xl text-zinc-700 dark:text-zinc-300">
            {t`No counters yet`}
          </p>
        ) : (
          blocks.map((block, index) =>
            block.kind === 'section' ? (
              <section
                key={`section-${block.name}`}
                aria-labelledby={`display-section-${index}`}
                className="flex flex-col"
              >
                <h2
                  id={`display-section-${index}`}
                  data-testid="display-section"
                  className="truncate px-2 font-semibold tabular-nums"
                  style={BLOCK_HEADING_STYLE}
                >
                  {block.name}{' '}
                  <span className="font-normal text-zinc-700 dark:text-zinc-300">
                    {totalText(block)}
                  </span>
                  {capacityText(block) !== null && (
                    <span className={`ms-2 font-normal ${toneText(block.capacity)}`}>
                      · {capacityText(block)}
                    </span>
                  )}
                </h2>
                <Tiles
                  label={countersIn(block.name)}
                  counters={block.counters}
                  store={store}
                  tiles={tiles}
                />
              </section>
            ) : block.headed ? (
              <section
                key={`run-${block.counters[0]?.id ?? index}`}
                aria-labelledby={`display-section-${index}`}
                className="flex flex-col"
              >
                <h2
                  id={`display-section-${index}`}
                  data-testid="display-run-heading"
                  className="truncate px-2 font-normal text-zinc-700 dark:text-zinc-300"
                  style={BLOCK_HEADING_STYLE}
                >
                  {t`Counters without a section`}
                </h2>
                <Tiles
                  label={t`Counters without a section`}
                  counters={block.counters}
                  store={store}
                  tiles={tiles}
                />
              </section>
            ) : (
              <Tiles
                key={`run-${block.counters[0]?.id ?? index}`}
                label={sectioned ? t`Counters without a section` : t`Counters`}
                counters={block.counters}
                store={store}
                tiles={tiles}
              />
            ),
          )
        )}
      </main>
    </div>
  );
}

/** A block's heading (a section's, or that of the counters after one without a section): one
 * line of SECTION_FONT_PX text in the SECTION_PX the layout keeps for it. */
const BLOCK_HEADING_STYLE = {
  fontSize: `${SECTION_FONT_PX}px`,
  lineHeight: 1.25,
  marginBottom: `${SECTION_PX - SECTION_FONT_PX * 1.25}px`,
};

const countersIn = (section: string) => t`Counters in ${section}`;

const nameOf = (counter: Counter) => (counter.name === '' ? t`Counter Name` : counter.name);

/**
 * The names' font size: the layout's, made smaller when a name still overflows its tile on one
 * line (a font wider than the layout's estimate). Measured before paint, so nothing is seen cut.
 */
function useFittedNames(size: number, counters: readonly Counter[]): number {
  const names = counters.map(nameOf).join('\n');
  const [fitted, setFitted] = useState({ size, names, scale: 1 });
  const current = fitted.size === size && fitted.names === names ? fitted : null;
  useLayoutEffect(() => {
    if (current === null) {
      setFitted({ size, names, scale: 1 });
      return;
    }
    let worst = 1;
    for (const node of document.querySelectorAll<HTMLElement>('[data-display-name]')) {
      if (node.scrollWidth > node.clientWidth + 1) {
        worst = Math.min(worst, node.clientWidth / node.scrollWidth);
      }
    }
    // Shrink once more than needed (2 %) so the next measurement finds room; never below half.
    if (worst < 1 && current.scale > 0.5) {
      setFitted({ ...current, scale: Math.max(0.5, current.scale * worst * 0.98) });
    }
  });
  return Math.floor(size * (current?.scale ?? 1));
}

/** The layout, the detail lines every tile has room for, and each tile's height, px. */
type Tiles = DisplayLayout & { lines: number; height: number };

/** One block's tiles: a grid as wide as the screen, every tile the same height. */
function Tiles({
  label,
  counters,
  store,
  tiles,
}: {
  label: string;
  counters: readonly Counter[];
  store: GroupStore;
  tiles: Tiles;
}) {
  return (
    <ul
      aria-label={label}
      className="grid"
      style={{
        gap: `${GAP_PX}px`,
        gridTemplateColumns: `repeat(${tiles.columns}, minmax(0, 1fr))`,
        gridAutoRows: `${tiles.height}px`,
      }}
    >
      {counters.map((counter) => (
        <DisplayCell key={counter.id} counter={counter} store={store} tiles={tiles} />
      ))}
    </ul>
  );
}

function toneText(level: string): string {
  if (level === 'full') return 'text-red-700 dark:text-red-300';
  if (level === 'near') return 'text-amber-800 dark:text-amber-300';
  return 'text-zinc-700 dark:text-zinc-300';
}

/**
 * A tile: the name on one line, the value, then the details in a box as tall as the most any tile
 * has. Every tile's stack is the same height and centred the same way, so names and values line
 * up across a row whatever each tile's details say, and a pace appearing moves nothing.
 */
function DisplayCell({
  counter,
  store,
  tiles: { valueSize, nameSize, detailSize, lines },
}: {
  counter: Counter;
  store: GroupStore;
  tiles: Tiles;
}) {
  const { t } = useLingui();
  const name = nameOf(counter);
  const goal = goalProgress(counter);
  const goalLabel = goal?.label;
  const capacity = capacityOf(counter);
  const detail = { fontSize: `${detailSize}px`, lineHeight: DETAIL_LINE };
  return (
    <li
      data-testid="display-counter"
      className="flex min-w-0 flex-col items-center justify-center rounded-2xl border border-zinc-200 bg-zinc-50 p-3 text-center dark:border-zinc-800 dark:bg-zinc-900"
    >
      <span
        data-display-name=""
        className="block w-full truncate font-semibold whitespace-nowrap text-zinc-700 dark:text-zinc-300"
        style={{ fontSize: `${nameSize}px`, lineHeight: NAME_LINE }}
        title={name}
      >
        {name}
      </span>
      <span
        data-testid="display-value"
        className="font-bold tabular-nums"
        style={{ fontSize: `${valueSize}px`, lineHeight: VALUE_LINE }}
      >
        {format(counter.value)}
      </span>
      <span
        className="flex w-full flex-col items-center overflow-hidden"
        style={{ height: `${lines * DETAIL_LINE * detailSize}px` }}
      >
        {goal !== null && (
          <span className="w-full max-w-md" style={detail}>
            <span className="block truncate tabular-nums">
              {goal.reached ? t`Goal reached · ${goalLabel}` : t`Goal ${goalLabel}`}
            </span>
            <span
              role="progressbar"
              aria-label={t`Goal of ${name}`}
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={Math.round(goal.fraction * 100)}
              aria-valuetext={goal.valueText}
              className="mt-1 block h-2 overflow-hidden rounded-full bg-zinc-200 dark:bg-zinc-800"
            >
              <span
                className={`block h-full rounded-full ${goal.reached ? 'bg-emerald-600 dark:bg-emerald-400' : 'bg-indigo-600 dark:bg-indigo-400'}`}
                style={{ width: `${Math.round(goal.fraction * 100)}%` }}
              />
            </span>
          </span>
        )}
        {capacity !== null && (
          <span
            data-testid="display-capacity"
            className={`max-w-full truncate font-semibold tabular-nums ${toneText(capacity.level)}`}
            style={detail}
          >
            {capacity.label} ·{' '}
            {numbersInOrder(`${format(counter.value)} / ${format(capacity.max)}`)}
          </span>
        )}
        <PaceLine
          counter={counter}
          store={store}
          stacked
          className="w-full text-zinc-700 dark:text-zinc-300"
          style={detail}
        />
      </span>
    </li>
  );
}
