/**
 * The fenced code blocks of a Markdown file that are marked runnable, and how their commands are
 * rewritten to run against a test server.
 *
 * The marker is a word of the fence's info string: ```` ```sh runnable ````. GitHub colours the
 * block by the first word and shows nothing of the rest, so readers see an ordinary shell block,
 * and the marker stays attached to the block it is about. Only shell blocks may carry it.
 */

export const RUNNABLE = 'runnable'
const SHELLS: ReadonlySet<string> = new Set(['sh', 'bash', 'shell'])

export interface Fence {
  /** the Markdown file, as the failure messages name it */
  readonly file: string
  /** 1-based line of the block's first content line in the file */
  readonly line: number
  /** the words of the info string: `sh`, `runnable` */
  readonly info: readonly string[]
  /** the content lines, without the fences */
  readonly lines: readonly string[]
}

const OPENING = /^ {0,3}(`{3,}|~{3,})(.*)$/

/** Every fenced block of `markdown` (CommonMark fences: ``` or ~~~, closed by a run at least as long). */
export function fences(file: string, markdown: string): Fence[] {
  const source = markdown.split('\n')
  const found: Fence[] = []
  for (let index = 0; index < source.length; index++) {
    const opening = OPENING.exec(source[index])
    if (opening === null) continue
    const [, run, info] = opening
    const closing = new RegExp(`^ {0,3}${run[0] === '`' ? '`' : '~'}{${run.length},}\\s*$`)
    let end = index + 1
    while (end < source.length && !closing.test(source[end])) end++
    if (end === source.length) throw new Error(`${file}:${index + 1}: the fenced block opened here is never closed`)
    found.push({ file, line: index + 2, info: info.trim().split(/\s+/).filter((word) => word !== ''), lines: source.slice(index + 1, end) })
    index = end
  }
  return found
}

/** The blocks marked runnable; a marked block that is not shell is an error naming its line. */
export function runnableFences(file: string, markdown: string): Fence[] {
  const marked = fences(file, markdown).filter((fence) => fence.info.includes(RUNNABLE))
  for (const fence of marked) {
    if (!SHELLS.has(fence.info[0] ?? '')) {
      throw new Error(`${file}:${fence.line - 1}: only shell blocks (sh, bash, shell) can be ${RUNNABLE}, this one is "${fence.info.join(' ')}"`)
    }
  }
  return marked
}

/**
 * A documented command line as the test runs it, with the line count unchanged:
 * - the address the docs use (127.0.0.1:9443, localhost:9443) becomes the test server's;
 * - the ways the docs start the CLI (`npx fleetsim`, `npx tsx src/cli.ts`,
 *   `npm run fleetsim --`) become `fleetsim`, the shell function the runner defines.
 */
export function rewriteLine(line: string, port: number): string {
  return line
    .replace(/\b(?:127\.0\.0\.1|localhost):9443\b/g, `127.0.0.1:${port}`)
    .replace(/\bnpx fleetsim\b|\bnpx tsx src\/cli\.ts\b|\bnpm run fleetsim --(?=\s|$)/g, 'fleetsim')
}
