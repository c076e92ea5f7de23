/**
 * Loading a scenario: text (YAML, which includes JSON) or a file, to the normalised and frozen
 * `Scenario`, or to the problems found (the first 100, and a count of the rest), each with its
 * file, path and line:column.
 *
 * Untrusted text is read in this order, each step only on what the one before let through:
 * size and nesting depth (limits.ts), the yaml package's parse, duplicate keys (unique-keys.ts),
 * aliases (aliases.ts), plain values, the schema. Whatever the yaml package throws on the way
 * becomes an issue too: a bad scenario is a list of problems, never an exception.
 */
import { Buffer, isUtf8 } from 'node:buffer'
import { basename, extname } from 'node:path'
import { LineCounter, parseDocument, visit, type YAMLError } from 'yaml'
import { aliasProblem, type AliasProblem } from './aliases.js'
import { Sink, formatPath } from './check.js'
import { readScenario } from './document.js'
import { libraryHint } from './library-dir.js'
import { ScenarioError, type ScenarioIssue } from './errors.js'
import { faultRule } from './faults.js'
import { deepFreeze } from './freeze.js'
import { SCENARIO_LIMITS, checkText, tooLarge } from './limits.js'
import { NO_POSITIONS, yamlLocator, type Locator } from './locate.js'
import type { FaultRule, Scenario } from './types.js'
import { keyProblems, type KeyProblem } from './unique-keys.js'
import { firstBadUtf8Byte } from '../lib/utf8.js'
import { UnreadableFileError, readBoundedSync } from '../lib/regular-file.js'

export type LoadResult =
  | { readonly ok: true; readonly scenario: Scenario }
  | { readonly ok: false; readonly issues: readonly ScenarioIssue[] }

/**
 * The yaml package's options. Duplicate keys are found by unique-keys.ts (the package's own check
 * is quadratic); its warnings (a list used as a key, say) are not printed on the server's stderr.
 * Merge keys (`<<: *base`) are read, as YAML 1.1 wrote them and most YAML users expect: the
 * aliases they name count against the alias limits as any alias does (aliases.ts).
 */
const YAML_OPTIONS = { prettyErrors: true, uniqueKeys: false, logLevel: 'error', merge: true } as const

/** What is wrong with a key (unique-keys.ts), for an FSC_YAML issue; `lineOf` an offset's line. */
function keyMessage(problem: KeyProblem, lineOf: (offset: number) => number | null): string {
  switch (problem.kind) {
    case 'rewritten':
      return `the key ${problem.written} is read as the ${problem.as} ${problem.read}, so it names "${problem.read}", not "${problem.written}"; quote it ("${problem.written}") to keep it as written`
    case 'collection':
      return `a key here is a ${problem.shape}, where keys are names; write the name as text`
    case 'duplicate':
      return `the key ${JSON.stringify(problem.key)} is already in this mapping at line ${lineOf(problem.firstOffset)}; keep one of the two`
  }
}

/** `scenarios/steady-fleet.yaml` → `steady-fleet` */
function nameOf(sourceName: string): string {
  return basename(sourceName, extname(sourceName)) || 'scenario'
}

/**
 * Document order reads best; issues without a position keep their place at the end. Past
 * maxListedProblems, one FSC_MORE issue counts the rest.
 */
function inDocumentOrder(issues: readonly ScenarioIssue[], sourceName: string): ScenarioIssue[] {
  const order = (i: ScenarioIssue) => (i.line ?? Infinity) * 1e6 + (i.column ?? 0)
  const sorted = issues.map((issue, n) => ({ issue, n })).sort((a, b) => order(a.issue) - order(b.issue) || a.n - b.n).map((x) => x.issue)
  const max = SCENARIO_LIMITS.maxListedProblems
  if (sorted.length <= max) return sorted
  const unlisted = sorted.length - max
  const message = `and ${unlisted} more problems, not listed; fix the ones above and check the scenario again`
  return [...sorted.slice(0, max), { code: 'FSC_MORE', file: sourceName, path: '', line: null, column: null, message, unlisted }]
}

/** What a section reader made of a parsed value, or the problems it found. */
export type ReadResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly issues: readonly ScenarioIssue[] }

/** Reads a parsed value, valid only without problems; the problems placed by `locator`, in document order. */
function finish<T>(value: unknown, sourceName: string, locator: Locator, read: (value: unknown, sink: Sink) => T | undefined): ReadResult<T> {
  const sink = new Sink()
  const got = read(value, sink)
  if (got !== undefined && sink.problems.length === 0) return { ok: true, value: deepFreeze(got) }
  const issues = sink.problems.map((p): ScenarioIssue => {
    const at = locator.locate(p.path, p.atKey)
    return { code: p.code, file: sourceName, path: formatPath(p.path), line: at?.line ?? null, column: at?.column ?? null, message: p.message }
  })
  return { ok: false, issues: inDocumentOrder(issues, sourceName) }
}

/** The whole scenario document as `finish` reads it. */
const scenarioReader = (sourceName: string) => (value: unknown, sink: Sink) => readScenario(value, nameOf(sourceName), sourceName, sink)

function asLoadResult(result: ReadResult<Scenario>): LoadResult {
  return result.ok ? { ok: true, scenario: result.value } : result
}

function yamlIssue(error: YAMLError, sourceName: string): ScenarioIssue {
  const pos = error.linePos?.[0]
  const first = error.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '')
  // The package's own advice for this one is to a programmer (`please use YAML.parseAllDocuments()`).
  const message =
    error.code === 'MULTIPLE_DOCS'
      ? 'the file holds more than one YAML document (a "---" after the first); a scenario is one document: remove the "---" and what follows it, or put each scenario in a file of its own'
      : first
  return { code: 'FSC_YAML', file: sourceName, path: '', line: pos?.line ?? null, column: pos?.col ?? null, message: `invalid YAML: ${message}` }
}

/**
 * The parser's errors as issues. A line indented deeper than the keys beside it (`  seed: 3`
 * under `agents: 10`) continues the text above it, and the parser reports two errors at the
 * start of that text, a line above the mistake: they become one issue at the line to fix.
 */
function yamlIssues(errors: readonly YAMLError[], text: string, sourceName: string): ScenarioIssue[] {
  const continued = errors.filter((e) => e.code === 'MULTILINE_IMPLICIT_KEY' && e.linePos?.[1] !== undefined && e.linePos[1].line > e.linePos[0].line)
  const starts = new Set(continued.map((e) => e.pos[0]))
  const issues = errors.filter((e) => !starts.has(e.pos[0])).map((e) => yamlIssue(e, sourceName))
  for (const error of continued) {
    const [from, to] = error.linePos as [{ line: number; col: number }, { line: number; col: number }]
    const lineText = text.split('\n')[to.line - 1] ?? ''
    const column = lineText.length - lineText.trimStart().length + 1
    const message = `invalid YAML: line ${to.line} continues the text that starts at line ${from.line}, column ${from.col}, so it cannot hold a key: indent it as the keys beside it, or quote the text`
    issues.push({ code: 'FSC_YAML', file: sourceName, path: '', line: to.line, column, message })
  }
  return issues
}

function aliasMessage(problem: AliasProblem): string {
  const { name } = problem
  switch (problem.kind) {
    case 'too-many-names':
      return `${name} makes more than the ${SCENARIO_LIMITS.maxAnchorsAndAliases} anchors (&name) and aliases (*name) a scenario may have; write values out, or share fewer of them`
    case 'unknown':
      return `alias *${name} has no anchor &${name} before it; put the anchor on an earlier value (an alias only refers back)`
    case 'cycle':
      return `alias *${name} is inside the value anchored &${name}, which would then contain itself without end; refer to a value outside it`
    case 'too-many-values':
      return `with alias *${name}, aliases stand for ${problem.values} values, more than the ${SCENARIO_LIMITS.maxAliasedValues} a scenario may repeat (an alias counts every value of what it refers to); use fewer aliases, or anchor smaller values`
  }
}

/** Something the yaml package threw: its alias checks throw ReferenceError, the rest is a parse failure. */
function thrownIssue(error: unknown, sourceName: string): ScenarioIssue {
  const message = (error instanceof Error ? error.message : String(error)).split('\n')[0]
  if (error instanceof ReferenceError) return { code: 'FSC_ALIAS', file: sourceName, path: '', line: null, column: null, message: `${message}; use fewer aliases (*name)` }
  return { code: 'FSC_YAML', file: sourceName, path: '', line: null, column: null, message: `invalid YAML: ${message}` }
}

/** The core schema's tags: `!!str 10` or `!!float 1` say what plain YAML would, and are read. */
const CORE_TAGS = new Set(['str', 'int', 'float', 'bool', 'null', 'map', 'seq'].map((name) => `tag:yaml.org,2002:${name}`))

/**
 * The nodes with a tag of their own other than the core schema's (`!ENV 10`, `!vault …`,
 * `!!binary …`), where they are. A tag the package does not know was dropped with a warning
 * nobody saw (the value read as text: `got "10"` for `!ENV 10`), and `!!binary` or `!!timestamp`
 * made a Buffer or a Date, "a mapping" to the checks.
 */
function foreignTags(root: unknown): Array<{ tag: string; offset: number }> {
  const found: Array<{ tag: string; offset: number }> = []
  // An empty document has no contents to visit.
  if (root === null || root === undefined) return found
  visit(root as Parameters<typeof visit>[0], (_key, node) => {
    // A key without a value (`{ next }`, `? fleet`) has no node for its value.
    if (node === null || typeof node !== 'object') return
    const { tag, range } = node as { tag?: string; range?: [number, number, number] }
    if (tag !== undefined && !CORE_TAGS.has(tag)) found.push({ tag: tag.replace(/^tag:yaml\.org,2002:/, '!!'), offset: range?.[0] ?? 0 })
  })
  return found
}

/** Parses YAML (or JSON) text; `sourceName` names it in messages and sets the default name. */
export function parseScenario(text: string, sourceName: string): LoadResult {
  return asLoadResult(parseYamlWith(text, sourceName, scenarioReader(sourceName)))
}

/**
 * Parses YAML (or JSON) text with the scenario's limits and checks, then reads the value with
 * `read` (a section's reader, e.g. one fault rule): what parseScenario does for a whole scenario.
 */
export function parseYamlWith<T>(text: string, sourceName: string, read: (value: unknown, sink: Sink) => T | undefined): ReadResult<T> {
  const refused = checkText(text, sourceName)
  if (refused !== undefined) return { ok: false, issues: [refused] }
  const lines = new LineCounter()
  const at = (offset: number) => {
    const { line, col } = lines.linePos(offset)
    return { line, column: col }
  }
  let doc: ReturnType<typeof parseDocument>
  let value: unknown
  try {
    doc = parseDocument(text, { ...YAML_OPTIONS, lineCounter: lines })
    const issues = yamlIssues(doc.errors, text, sourceName)
    for (const { tag, offset } of foreignTags(doc.contents)) {
      const message = `invalid YAML: the tag ${tag} is not read here (a scenario's values are plain YAML: text, numbers, true and false, lists and mappings); remove the tag and write the value itself`
      issues.push({ code: 'FSC_YAML', file: sourceName, path: '', ...at(offset), message })
    }
    for (const problem of keyProblems(doc.contents, text)) {
      issues.push({ code: 'FSC_YAML', file: sourceName, path: '', ...at(problem.offset), message: `invalid YAML: ${keyMessage(problem, (offset) => at(offset).line)}` })
    }
    if (issues.length > 0) return { ok: false, issues: inDocumentOrder(issues, sourceName) }
    const alias = aliasProblem(doc.contents)
    if (alias !== undefined) return { ok: false, issues: [{ code: 'FSC_ALIAS', file: sourceName, path: '', ...at(alias.offset), message: aliasMessage(alias) }] }
    // The package's own alias count stays on as a second guard.
    value = doc.toJS({ maxAliasCount: SCENARIO_LIMITS.maxAliasedValues })
  } catch (error) {
    return { ok: false, issues: [thrownIssue(error, sourceName)] }
  }
  return finish(value, sourceName, yamlLocator(doc.contents, lines), read)
}

/** Checks an already parsed value (for example a JSON request body); no line numbers. */
export function checkScenarioValue(value: unknown, sourceName: string): LoadResult {
  return asLoadResult(finish(value, sourceName, NO_POSITIONS, scenarioReader(sourceName)))
}

/**
 * One fault rule, as an entry of a scenario's `faults` is written (YAML or JSON text): what the
 * admin API adds to the rules in force. `defaultName` names it when it has no `name`.
 */
export function parseFaultRule(text: string, sourceName: string, defaultName: string): ReadResult<FaultRule> {
  return parseYamlWith(text, sourceName, (value, sink) => faultRule(0, defaultName)(value, [], sink))
}

/**
 * The file's text; or `tooLarge` without reading more than one byte past the limit; or the bytes
 * when they are not UTF-8. A named pipe is read without waiting for a writer (one nobody wrote
 * hung `scenario validate` and `run`), a device up to the limit (src/lib/regular-file.ts).
 */
function readText(path: string): { text: string } | { tooLarge: number | undefined } | { notUtf8: Buffer } {
  let bytes: Buffer
  try {
    bytes = readBoundedSync(path, SCENARIO_LIMITS.maxBytes, { devices: true })
  } catch (error) {
    if (error instanceof UnreadableFileError && error.code === 'ETOOBIG') return { tooLarge: error.detail.size }
    throw error
  }
  // Decoded as it is, a byte that is not UTF-8 became U+FFFD in silence: a name saved as Latin-1 changed.
  return isUtf8(bytes) ? { text: bytes.toString('utf8') } : { notUtf8: bytes }
}

/**
 * FSC_ENCODING for a file that is not UTF-8: where the first bad byte is (line and column, the
 * column counted in UTF-16 units as the yaml package counts the other problems'), or that it is UTF-16 (Windows'
 * "Unicode" files, which start with a byte order mark).
 */
function notUtf8(path: string, bytes: Buffer): ScenarioIssue {
  const issue = { code: 'FSC_ENCODING', file: path, path: '' } as const
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    const mark = bytes[0] === 0xff ? 'FF FE' : 'FE FF'
    return { ...issue, line: null, column: null, message: `the file is UTF-16 (it starts with the byte order mark ${mark}), not UTF-8; save it as UTF-8` }
  }
  const at = firstBadUtf8Byte(bytes)
  if (at === undefined) return { ...issue, line: null, column: null, message: 'the file is not UTF-8 (a surrogate or an overlong form); save it as UTF-8' }
  const before = bytes.toString('utf8', 0, at)
  const lineStart = before.lastIndexOf('\n') + 1
  const byte = bytes[at].toString(16).toUpperCase().padStart(2, '0')
  return {
    ...issue,
    line: before.split('\n').length,
    column: before.length - lineStart + 1,
    message: `the file is not UTF-8: byte 0x${byte} here is not a UTF-8 character (a file saved as Latin-1 or Windows-1252 has such bytes); save it as UTF-8`
  }
}

export async function loadScenarioFile(path: string): Promise<LoadResult> {
  let read: Awaited<ReturnType<typeof readText>>
  try {
    read = readText(path)
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message
    const kind = err instanceof UnreadableFileError ? err.detail.kind : undefined
    const message =
      reason === 'ENOENT'
        ? `no such file${libraryHint(path)}`
        : kind === 'a directory'
          ? 'is a directory, not a scenario file; name a .yaml or .json file in it'
          : kind !== undefined
            ? `is ${kind}, not a scenario file; name a .yaml or .json file`
            : `cannot read the file (${reason})`
    const issue: ScenarioIssue = { code: 'FSC_READ', file: path, path: '', line: null, column: null, message }
    return { ok: false, issues: [issue] }
  }
  if ('tooLarge' in read) return { ok: false, issues: [tooLarge(path, read.tooLarge)] }
  if ('notUtf8' in read) return { ok: false, issues: [notUtf8(path, read.notUtf8)] }
  return parseScenario(read.text, path)
}

/** The scenario, or a thrown ScenarioError (code FSC_INVALID) listing every problem. */
export async function loadScenarioFileOrThrow(path: string): Promise<Scenario> {
  const result = await loadScenarioFile(path)
  if (!result.ok) throw new ScenarioError(result.issues)
  return result.scenario
}
