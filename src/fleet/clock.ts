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
    if (!(speed > 0) || !Number.isFinite(speed)) throw new RangeError(`speed must be a positive number, got ${speed}`)
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
