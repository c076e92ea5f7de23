import { describe, expect, it } from 'vitest'
import { Progress } from '../../src/run/progress.js'

function stream(isTTY: boolean) {
  const written: string[] = []
  return { isTTY, written, write: (text: string) => written.push(text) }
}

describe('the progress of a headless run', () => {
  it('redraws one bar on a terminal and ends the line when done', () => {
    const tty = stream(true)
    const progress = new Progress(tty, 3600, 'demo')
    progress.update(3600)
    progress.done()
    expect(tty.written[0]).toMatch(/^\rdemo █{30} 100% 1h \/ 1h virtual/)
    expect(tty.written.at(-1)).toBe('\n')
  })

  it('prints a plain line every tenth elsewhere', () => {
    const log = stream(false)
    const progress = new Progress(log, 100, 'demo')
    for (let s = 1; s <= 100; s++) progress.update(s)
    progress.done()
    expect(log.written).toHaveLength(11)
    expect(log.written.every((line) => !line.includes('\r') && line.endsWith('\n'))).toBe(true)
  })
})
