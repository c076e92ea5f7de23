/**
 * The virtual clock: simulated time that runs at a speed factor (1 = real time, 3600 = an
 * hour per second), can be paused, and can be moved forward by a given amount. Every delay
 * in the simulator is measured on it, so tests drive it instead of sleeping.
 *
 * Virtual time is kept as an anchor (virtual ms at a wall instant) plus elapsed wall time
 * times the speed; changing the speed or pausing re-anchors, so time never jumps.
 */
export interface ClockState {
  /** virtual time, epoch ms */
  now: number
  speed: number
  paused: boolean
}

/**
 * The fastest the clock runs: a million virtual seconds a real second (11.6 days). Faster than
 * any fleet steps, so the fleet already steps back to back there; any faster and the fleet only
 * falls further behind, and at 1e300 virtual time left the range a date can hold at once.
 */
export const MAX_SPEED = 1_000_000

/** Why a speed is refused (undefined: it is fine), for the flag, the admin API and the clock itself. */
export function speedProblem(speed: number): string | undefined {
  if (!Number.isFinite(speed) || !(speed > 0)) return 'must be a positive finite number of virtual seconds per real second'
  if (speed > MAX_SPEED) return `must be at most ${MAX_SPEED} (a million virtual seconds a real second, 11.6 days); the fleet steps back to back well below that`
  return undefined
}

export class VirtualClock {
  private anchorVirtual: number
  private anchorWall: number
  private currentSpeed: number
  private isPaused: boolean

  constructor(
    readonly epochMs: number,
    options: { speed: number; paused: boolean },
    private readonly wallNow: () => number = () => performance.now()
  ) {
    const problem = speedProblem(options.speed)
    if (problem !== undefined) throw new RangeError(`speed ${problem}, got ${options.speed}`)
    this.anchorVirtual = 0
    this.anchorWall = wallNow()
    this.currentSpeed = options.speed
    this.isPaused = options.paused
  }

  /** virtual ms elapsed since the epoch */
  elapsedMs(): number {
    if (this.isPaused) return this.anchorVirtual
    return this.anchorVirtual + (this.wallNow() - this.anchorWall) * this.currentSpeed
  }

  state(): ClockState {
    return { now: this.epochMs + this.elapsedMs(), speed: this.currentSpeed, paused: this.isPaused }
  }

  get speed(): number {
    return this.currentSpeed
  }

  get paused(): boolean {
    return this.isPaused
  }

  private reanchor(): void {
    this.anchorVirtual = this.elapsedMs()
    this.anchorWall = this.wallNow()
  }

  setSpeed(speed: number): void {
    const problem = speedProblem(speed)
    if (problem !== undefined) throw new RangeError(`speed ${problem}, got ${speed}`)
    this.reanchor()
    this.currentSpeed = speed
  }

  setPaused(paused: boolean): void {
    this.reanchor()
    this.isPaused = paused
  }

  /** Moves virtual time forward by `ms`, paused or not. */
  advance(ms: number): void {
    if (!(ms >= 0) || !Number.isFinite(ms)) throw new RangeError(`advance needs a non-negative number, got ${ms}`)
    this.reanchor()
    this.anchorVirtual += ms
  }

  /** Wall milliseconds until the virtual clock reaches `elapsed` ms (Infinity when paused). */
  wallMsUntil(elapsed: number): number {
    const remaining = elapsed - this.elapsedMs()
    if (remaining <= 0) return 0
    return this.isPaused ? Infinity : remaining / this.currentSpeed
  }
}
