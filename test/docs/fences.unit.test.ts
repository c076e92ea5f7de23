import { describe, expect, it } from 'vitest'
import { fences, rewriteLine, runnableFences } from './fences.js'

const doc = [
  '# Title', //                                         1
  '', //                                                2
  '```sh runnable', //                                  3
  'curl -k https://127.0.0.1:9443/__admin/fleet', //    4
  '```', //                                             5
  '', //                                                6
  '```sh', //                                           7
  'npm start', //                                       8
  '```', //                                             9
  '', //                                                10
  '````md', //                                          11
  '```sh runnable', //                                  12
  'not a fence of its own', //                          13
  '```', //                                             14
  '````', //                                            15
  '~~~bash runnable', //                                16
  'fleetsim report', //                                 17
  'fleetsim report --json', //                          18
  '~~~' //                                              19
].join('\n')

describe('runnableFences', () => {
  it('finds the shell blocks marked runnable, with the line of their first command', () => {
    expect(runnableFences('doc.md', doc).map(({ line, info, lines }) => ({ line, info, lines }))).toEqual([
      { line: 4, info: ['sh', 'runnable'], lines: ['curl -k https://127.0.0.1:9443/__admin/fleet'] },
      { line: 17, info: ['bash', 'runnable'], lines: ['fleetsim report', 'fleetsim report --json'] }
    ])
  })

  it('leaves unmarked blocks and fences shown inside a longer fence alone', () => {
    expect(fences('doc.md', doc).map((fence) => fence.line)).toEqual([4, 8, 12, 17])
  })

  it('refuses the marker on a block that is not shell, naming the file and line', () => {
    expect(() => runnableFences('doc.md', 'text\n```json runnable\n{}\n```\n')).toThrow('doc.md:2: only shell blocks (sh, bash, shell) can be runnable, this one is "json runnable"')
  })

  it('refuses a block that is never closed', () => {
    expect(() => fences('doc.md', 'text\n```sh runnable\nls\n')).toThrow('doc.md:2: the fenced block opened here is never closed')
  })
})

describe('rewriteLine', () => {
  it('points the documented address at the test server', () => {
    expect(rewriteLine("curl $A 'https://127.0.0.1:9443/__admin/fleet' https://localhost:9443/x", 40123)).toBe(
      "curl $A 'https://127.0.0.1:40123/__admin/fleet' https://127.0.0.1:40123/x"
    )
  })

  it('runs every documented spelling of the CLI as the fleetsim function', () => {
    expect(rewriteLine('npx fleetsim scenario list', 1)).toBe('fleetsim scenario list')
    expect(rewriteLine('npx tsx src/cli.ts run a.yaml --out out/', 1)).toBe('fleetsim run a.yaml --out out/')
    expect(rewriteLine('npm run fleetsim -- scenario validate a.yaml', 1)).toBe('fleetsim scenario validate a.yaml')
  })

  it('leaves other ports and commands as they are', () => {
    expect(rewriteLine('curl https://127.0.0.1:19443/ && npm start -- --port 9443', 1)).toBe('curl https://127.0.0.1:19443/ && npm start -- --port 9443')
  })
})
