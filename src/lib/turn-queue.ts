/**
 * Turns in call order: each section starts once every section queued before it has settled,
 * so sections never overlap, even when they await in the middle. A section that fails
 * rejects its own caller only; the next one still gets its turn.
 *
 * The fleet engine runs step rounds and mutations in one queue of turns (fleet.ts), which is
 * what makes a run reproducible. It imports nothing, so any layer above the fleet may use it.
 */
export class TurnQueue {
  /** the last section queued, settled either way: the next section starts after it */
  private tail: Promise<unknown> = Promise.resolve()

  /** Runs `section` after every section queued before it, and before any queued after it. */
  run<T>(section: () => T | Promise<T>): Promise<T> {
    const turn = this.tail.then(section)
    this.tail = turn.catch(() => undefined)
    return turn
  }

  /** Resolves once every section queued so far has settled (it never rejects). */
  settled(): Promise<void> {
    return this.tail.then(() => undefined)
  }
}
