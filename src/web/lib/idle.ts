/** Runs a task once the browser is idle (after first paint), e.g. to prefetch a later chunk. */
export function whenIdle(task: () => void): void {
  if (typeof window.requestIdleCallback === 'function') {
    window.requestIdleCallback(task, { timeout: 3_000 });
  } else {
    setTimeout(task, 1_000);
  }
}
