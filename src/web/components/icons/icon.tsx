/**
 * How Tally draws an icon: one stroked path on a 24 px grid (2 px round strokes, the usual
 * line-icon look), so the app ships a few hundred bytes of path data instead of an icon library's
 * runtime (each screen's initial JavaScript has a budget, test/e2e/bundle.spec.ts). Decorative
 * only: every button that shows one has its own accessible name. Each icon is a module of its own
 * in this folder (see index.ts).
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
