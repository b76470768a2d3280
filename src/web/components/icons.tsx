/**
 * Tally's icons: one stroked path each on a 24 px grid (2 px round strokes, the usual line-icon
 * look), drawn here so the group screen ships a few hundred bytes of path data instead of an icon
 * library's runtime (the group screen's initial JavaScript has a budget, test/e2e/bundle.spec.ts).
 * Decorative only: every button that shows one has its own accessible name. New icons are declared
 * here, so the same picture is not drawn twice in different files (a few screens still keep older
 * ones of their own).
 * Circles are two half arcs: M(x-r) y a r r 0 1 0 (2r) 0 a r r 0 1 0 -(2r) 0.
 */

interface IconProps {
  className?: string;
}

export function icon(d: string) {
  return function Icon({ className }: IconProps) {
    return (
      <svg
        viewBox="0 0 24 24"
        fill="none"
        stroke="currentColor"
        strokeWidth={2}
        strokeLinecap="round"
        strokeLinejoin="round"
        aria-hidden="true"
        className={className}
      >
        <path d={d} />
      </svg>
    );
  };
}

export const Plus = icon('M12 5v14M5 12h14');
export const Minus = icon('M5 12h14');
export const Check = icon('M20 6 9 17l-5-5');
export const X = icon('M18 6 6 18M6 6l12 12');
export const Trash = icon('M3 6h18M8 6V4h8v2m2 0-1 14H7L6 6m4 5v6m4-6v6');
export const ImagePlus = icon(
  'M21 12v7a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2h7m4 2h6m-3-3v6M3 17l5-5 8 8M7.5 8a1.5 1.5 0 1 0 3 0a1.5 1.5 0 1 0-3 0',
);
export const ImageOff = icon(
  'm2 2 20 20M9 3h10a2 2 0 0 1 2 2v10M19 21H5a2 2 0 0 1-2-2V5m0 12 5-5 4 4',
);
export const Loader = icon('M21 12a9 9 0 1 1-6.2-8.6');
export const CircleAlert = icon('M2 12a10 10 0 1 0 20 0a10 10 0 1 0-20 0M12 7v6m0 4h.01');
export const House = icon('M3 10.5 12 3l9 7.5V20a1 1 0 0 1-1 1h-5v-6H9v6H4a1 1 0 0 1-1-1z');
export const Share = icon(
  'M15 5a3 3 0 1 0 6 0a3 3 0 1 0-6 0M3 12a3 3 0 1 0 6 0a3 3 0 1 0-6 0M15 19a3 3 0 1 0 6 0a3 3 0 1 0-6 0M8.6 13.5l6.8 4m0-11-6.8 4',
);
export const WifiOff = icon(
  'm2 2 20 20M12 20h.01M8.5 16.4a5 5 0 0 1 7 0M5 12.9a10 10 0 0 1 5-2.8m9 2.8a10 10 0 0 0-2.4-1.7M2 8.8a15 15 0 0 1 4.3-2.7M22 8.8A15 15 0 0 0 11 5',
);
export const Clock = icon('M2 12a10 10 0 1 0 20 0a10 10 0 1 0-20 0M12 6v6l4 2');
export const Sun = icon(
  'M8 12a4 4 0 1 0 8 0a4 4 0 1 0-8 0M12 2v2m0 16v2M4.9 4.9l1.4 1.4m11.4 11.4 1.4 1.4M2 12h2m16 0h2M6.3 17.7l-1.4 1.4M19.1 4.9l-1.4 1.4',
);
export const Moon = icon('M12 3a6 6 0 0 0 9 9 9 9 0 1 1-9-9z');
/** Settings (a counter's goal and limits, the group's time zone and week). */
export const ChartLine = icon('M3 3v18h18M7 15l4-4 3 3 6-6');
export const Sliders = icon('M4 6h9m4 0h3M4 12h3m4 0h9M4 18h11m4 0h1M13 4v4M7 10v4M15 16v4');
/** A counter's menu of less frequent actions (settings, focus mode, delete). */
export const MoreVertical = icon(
  'M11 5a1 1 0 1 0 2 0a1 1 0 1 0-2 0M11 12a1 1 0 1 0 2 0a1 1 0 1 0-2 0M11 19a1 1 0 1 0 2 0a1 1 0 1 0-2 0',
);
/** Focus mode: one counter full screen. */
export const Maximize = icon('M4 9V4h5M20 9V4h-5M4 15v5h5M20 15v5h-5');
/** A card's capacity states: room left, nearly full, full. */
export const Gauge = icon('M12 14l4-4M3.3 19a10 10 0 1 1 17.4 0');
export const TriangleAlert = icon(
  'M10.3 3.9 1.8 18a2 2 0 0 0 1.7 3h17a2 2 0 0 0 1.7-3L13.7 3.9a2 2 0 0 0-3.4 0M12 9v4m0 4h.01',
);
export const Ban = icon('M2 12a10 10 0 1 0 20 0a10 10 0 1 0-20 0M4.9 4.9l14.2 14.2');
/** At the minimum. */
export const ArrowDownToLine = icon('M12 3v12m-5-5 5 5 5-5M5 21h14');
/** A counter that resets each day, week or month. */
export const RotateCcw = icon('M3 12a9 9 0 1 0 3-6.7L3 8m0-5v5h5');
/** Reorder mode. */
export const ArrowsUpDown = icon('M7 20V4M3 8l4-4 4 4M17 4v16M21 16l-4 4-4-4');
/** Something is only to be looked at here (a view-only link). */
export const Eye = icon(
  'M2 12s3.6-7 10-7 10 7 10 7-3.6 7-10 7S2 12 2 12M9 12a3 3 0 1 0 6 0a3 3 0 1 0-6 0',
);
