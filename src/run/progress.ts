/**
 * Progress of a headless run on stderr: a redrawn bar on a terminal, plain lines every 10%
 * otherwise (logs and CI keep a readable record instead of carriage returns).
 */
import { formatSeconds } from '../lib/units.js'

export interface ProgressStream {
  isTTY?: boolean
  columns?: number
  write(text: string): unknown
}

const BAR_WIDTH = 30
/** A terminal bar is redrawn at most this often (wall ms). */
const REDRAW_MS = 100

export class Progress {
  private lastDraw = -Infinity
  private lastTenth = -1
  private readonly started = performance.now()

  constructor(
    private readonly stream: ProgressStream,
    private readonly total: number,
    private readonly label: string
  ) {}

  update(second: number): void {
    const fraction = Math.min(1, second / this.total)
    const elapsed = (performance.now() - this.started) / 1000
    const status = `${formatSeconds(second)} / ${formatSeconds(this.total)} virtual, ${elapsed.toFixed(1)} s wall`
    if (this.stream.isTTY === true) {
      const now = performance.now()
      if (now - this.lastDraw < REDRAW_MS && fraction < 1) return
      this.lastDraw = now
      const filled = Math.round(fraction * BAR_WIDTH)
      const bar = `${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}`
      this.stream.write(`\r${this.label} ${bar} ${String(Math.floor(fraction * 100)).padStart(3)}% ${status}\x1b[K`)
      return
    }
    const tenth = Math.floor(fraction * 10)
    if (tenth > this.lastTenth) {
      this.lastTenth = tenth
      this.stream.write(`${this.label} ${tenth * 10}% ${status}\n`)
    }
  }

  done(): void {
    if (this.stream.isTTY === true) this.stream.write('\n')
  }
}
