/**
 * Tally's mark (four strokes and a bar, the oldest way to count): the favicon file, so it costs
 * no JavaScript and is cached once for every screen.
 */
export function Logo({ size = 64, className = '' }: { size?: number; className?: string }) {
  return (
    <img
      src="/favicon.svg"
      alt=""
      width={size}
      height={size}
      className={`shrink-0 drop-shadow-sm ${className}`}
    />
  );
}
