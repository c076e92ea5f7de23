/**
 * The bounds of a scenario's text, checked before the YAML package builds anything from it:
 * its size and how deep its lists and mappings nest. (Its anchors and aliases are counted on the
 * parsed document, in aliases.ts.) docs/limits.md lists them.
 *
 * Why depth is checked first: the yaml package reads text in three steps. Its lexer and its CST
 * parser are loops with a stack of their own, but its composer, which turns the CST into nodes,
 * recurses once per level. Ten thousand `[` overflow the stack there, and a second such upload
 * ended the process in V8's RegExp compiler. So the depth is measured with the lexer and the CST
 * parser alone, which see brackets inside quotes, comments and block scalars exactly as the
 * composer will, and the composer only ever sees text within the limit.
 */
import { Buffer } from 'node:buffer'
import { Lexer, Parser } from 'yaml'
import type { ScenarioIssue } from './errors.js'

export const SCENARIO_LIMITS = Object.freeze({
  /** bytes of UTF-8 text: the default of --body-limit, so the same scenario loads from a file and an upload */
  maxBytes: 1024 * 1024,
  /** lists and mappings inside each other; the scenario schema needs fewer than ten */
  maxDepth: 64,
  /** anchors (`&name`) and aliases (`*name`) together: the yaml package resolves aliases in time quadratic in them */
  maxAnchorsAndAliases: 1000,
  /** values that aliases (`*name`) stand for, each counted as if written out where it is used */
  maxAliasedValues: 10_000,
  /** problems listed for one scenario: without it, 1 MiB of unknown keys got an answer many times its size */
  maxListedProblems: 100
})

/** CST tokens that are lists or mappings; the parser's stack also holds the document and scalars. */
const COLLECTIONS = new Set(['block-map', 'block-seq', 'flow-collection'])

export interface Nesting {
  /** the most lists and mappings open at once (limit + 1 when the scan stopped early) */
  readonly depth: number
  /** where that depth was first reached: the offset of the token that opened the deepest one */
  readonly offset: number
}

/**
 * How deep lists and mappings nest in `text`, by the yaml package's own lexer and CST parser
 * (linear, no recursion). Stops as soon as the depth passes `limit`, so a hostile text costs no
 * more than its first levels.
 */
export function nesting(text: string, limit = Infinity): Nesting {
  const parser = new Parser()
  let depth = 0
  let offset = 0
  for (const token of new Lexer().lex(text)) {
    const at = parser.offset
    // Whole documents come out of next(); only the stack they leave behind matters here.
    for (const _document of parser.next(token));
    // The stack holds every open collection, so it cannot hold more than `depth` while it is no longer.
    if (parser.stack.length <= depth) continue
    let open = 0
    for (const node of parser.stack) if (COLLECTIONS.has(node.type)) open++
    if (open > depth) {
      depth = open
      offset = at
      if (depth > limit) break
    }
  }
  return { depth, offset }
}

/** 1-based line and column of `offset`, as the yaml package counts them. */
function position(text: string, offset: number): { line: number; column: number } {
  let line = 1
  let start = 0
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++
    start = i + 1
  }
  return { line, column: offset - start + 1 }
}

/** The issue of a text over the size limit; `bytes` is its size when known. */
export function tooLarge(sourceName: string, bytes?: number): ScenarioIssue {
  const max = SCENARIO_LIMITS.maxBytes
  const size = bytes === undefined ? '' : `${bytes} bytes, `
  return {
    code: 'FSC_TOO_LARGE',
    file: sourceName,
    path: '',
    line: null,
    column: null,
    message: `the scenario is ${size}more than the ${max} bytes (${max / 1024 / 1024} MiB) a scenario may have; shorten it: repeated stages or timeline events can usually be one entry with a pick or an "every" schedule`
  }
}

/** The size or depth problem of a scenario's text, or undefined when the YAML parser may read it. */
export function checkText(text: string, sourceName: string): ScenarioIssue | undefined {
  // A UTF-16 unit takes at most 3 bytes in UTF-8: a text of a third of the limit needs no counting.
  if (text.length * 3 > SCENARIO_LIMITS.maxBytes) {
    const bytes = Buffer.byteLength(text, 'utf8')
    if (bytes > SCENARIO_LIMITS.maxBytes) return tooLarge(sourceName, bytes)
  }
  const max = SCENARIO_LIMITS.maxDepth
  const { depth, offset } = nesting(text, max)
  if (depth <= max) return undefined
  return {
    code: 'FSC_TOO_DEEP',
    file: sourceName,
    path: '',
    ...position(text, offset),
    message: `lists and mappings nest more than ${max} levels deep here (a scenario needs only a few); flatten the structure, or close a "[" or "{" left open before this point`
  }
}
