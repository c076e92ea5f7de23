/**
 * Waiting wall time, however long. Node's timers hold at most 2^31 - 1 ms (24.8 days): a longer
 * delay is taken as 1 ms, with a TimeoutOverflowWarning on stderr, so a fault rule that was to
 * hold a call for 30 days answered it at once. A longer wait is taken in turns of that length
 * (Infinity: for good, as the rule asks).
 */
export const MAX_TIMER_MS = 2 ** 31 - 1

/** `signal`: the wait ends early when it is aborted (the client that waits has left), its timer cleared. */
export async function waitWall(ms: number, signal?: AbortSignal): Promise<void> {
  let left = ms
  while (left > 0 && signal?.aborted !== true) {
    const turn = Math.min(left, MAX_TIMER_MS)
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer)
        signal?.removeEventListener('abort', done)
        resolve()
      }
      const timer = setTimeout(done, turn)
      signal?.addEventListener('abort', done, { once: true })
    })
    left -= turn
  }
}
