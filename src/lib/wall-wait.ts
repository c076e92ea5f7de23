/**
 * Waiting wall time, however long. Node's timers hold at most 2^31 - 1 ms (24.8 days): a longer
 * delay is taken as 1 ms, with a TimeoutOverflowWarning on stderr, so a fault rule that was to
 * hold a call for 30 days answered it at once. A longer wait is taken in turns of that length
 * (Infinity: for good, as the rule asks).
 */
export const MAX_TIMER_MS = 2 ** 31 - 1

export async function waitWall(ms: number): Promise<void> {
  let left = ms
  while (left > MAX_TIMER_MS) {
    await new Promise((resolve) => setTimeout(resolve, MAX_TIMER_MS))
    left -= MAX_TIMER_MS
  }
  await new Promise((resolve) => setTimeout(resolve, left))
}
