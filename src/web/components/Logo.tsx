/** Tally's mark: four strokes and a bar, the oldest way to count. */
export function Logo({ size = 64, className = '' }: { size?: number; className?: string }) {
  return (
    <svg
      width={size}
      height={size}
      viewBox="0 0 64 64"
      aria-hidden="true"
      className={`shrink-0 drop-shadow-sm ${className}`}
    >
      <defs>
        <linearGradient id="tally-logo-gradient" x1="0" y1="0" x2="1" y2="1">
          <stop offset="0" stopColor="#6366f1" />
          <stop offset="1" stopColor="#8b5cf6" />
        </linearGradient>
      </defs>
      <rect width="64" height="64" rx="16" fill="url(#tally-logo-gradient)" />
      <g stroke="#fff" strokeWidth="5" strokeLinecap="round">
        <path d="M19 18v28M28 18v28M37 18v28M46 18v28" />
        <path d="M13 40 52 24" />
      </g>
    </svg>
  );
}
