/**
 * Runs `run` at most once per `intervalMs`, and never drops the last call: the first call of a quiet spell
 * runs at once, calls within the interval after a run are gathered into one trailing run when the interval
 * is over. Live events use it so a burst of them costs one refetch per second (issue 18), and the state after
 * the burst's last event is always fetched. `cancel` drops a waiting trailing run (the screen went away).
 */
export function throttleTrailing(run: () => void, intervalMs: number): { call(): void; cancel(): void } {
  let last = -Infinity;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const fire = () => {
    timer = null;
    last = Date.now();
    run();
  };
  return {
    call() {
      if (timer) return;
      const wait = last + intervalMs - Date.now();
      if (wait <= 0) fire();
      else timer = setTimeout(fire, wait);
    },
    cancel() {
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
