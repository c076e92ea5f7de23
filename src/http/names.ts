/**
 * The naming rule: a name of an agent, template or custom label must be one that the
 * comma-delimited list parameters addressing it can carry, or the thing could be created but
 * never found again. coerce.ts splits those lists on commas, trims each item (the same
 * whitespace String.prototype.trim removes) and drops empty items; a URL carries text as
 * percent-encoded UTF-8, which has no form for a lone surrogate; and XML answers cannot carry
 * control characters or U+FFFE and U+FFFF (they come back as U+FFFD). So a name is refused when
 * it is empty, or has a comma, whitespace at either end, a control character (C0, DEL, C1),
 * U+FFFE or U+FFFF, or a lone surrogate.
 *
 * Request bodies mark their name fields with the NAME_RULE schema keyword (schemas.ts); the
 * validator (validation.ts) runs `nameError` on them. docs/protocol.md, "Names", documents the
 * rule.
 */
import { apiError, type ApiError } from '../protocol/errors.js'

/** Schema keyword naming the kind of a name field, e.g. `{ "x-name-rule": "agent" }`. */
export const NAME_RULE = 'x-name-rule'

export type NameKind = 'agent' | 'master template' | 'sub template' | 'custom label'

export type NameRule = 'empty' | 'comma' | 'leading whitespace' | 'trailing whitespace' | 'control character' | 'lone surrogate' | 'noncharacter'

export interface NameProblem {
  rule: NameRule
  /** 1-based, counted in characters (code points), as a person counts; 0 for an empty name */
  position: number
  /** the offending character's code point (a lone surrogate's code unit); -1 for an empty name */
  codePoint: number
}

/** The first problem of a name, reading from the left; undefined for a usable name. */
export function findNameProblem(name: string): NameProblem | undefined {
  if (name === '') return { rule: 'empty', position: 0, codePoint: -1 }
  // Code-unit offsets of the whitespace the list parser trims at either end.
  const leadingEnd = name.length - name.trimStart().length
  const trailingStart = name.trimEnd().length
  let position = 0
  let offset = 0
  // for…of walks code points, and yields a lone surrogate as a one-unit string.
  for (const character of name) {
    position++
    const codePoint = character.codePointAt(0) as number
    const rule = ruleOf(codePoint, character.length === 1 && isSurrogate(codePoint), offset < leadingEnd, offset >= trailingStart)
    if (rule !== undefined) return { rule, position, codePoint }
    offset += character.length
  }
  return undefined
}

function ruleOf(codePoint: number, lone: boolean, leading: boolean, trailing: boolean): NameRule | undefined {
  if (lone) return 'lone surrogate'
  if (isControl(codePoint)) return 'control character'
  if (codePoint === 0xfffe || codePoint === 0xffff) return 'noncharacter'
  if (codePoint === 0x2c) return 'comma'
  if (leading) return 'leading whitespace'
  if (trailing) return 'trailing whitespace'
  return undefined
}

const isSurrogate = (codePoint: number): boolean => codePoint >= 0xd800 && codePoint <= 0xdfff
/** C0 controls, DEL and C1 controls (Unicode general category Cc). */
const isControl = (codePoint: number): boolean => codePoint <= 0x1f || (codePoint >= 0x7f && codePoint <= 0x9f)

/** What addresses names of each kind through a list, and what a bad name would cost. */
const ADDRESSED: Record<NameKind, { list: string; takes: string; trims: string; drops: string; lost: string; garbled: string }> = {
  agent: {
    list: 'agentinfo?agentname=',
    takes: 'takes a comma-separated list',
    trims: 'trims the whitespace around each item of its list',
    drops: 'drops empty items of its list',
    lost: 'this agent could never be found',
    garbled: 'this agent would not come back as it was named'
  },
  'sub template': {
    list: 'assigntemplatetoagent?subTemplateNames=',
    takes: 'takes a comma-separated list',
    trims: 'trims the whitespace around each item of its list',
    drops: 'drops empty items of its list',
    lost: 'this sub template could never be assigned',
    garbled: 'this sub template would not come back as it was named'
  },
  // A master template is named by scalar parameters only, but it shares one namespace with
  // agents and sub templates (viewagentortemplate finds any of them), so one rule covers all.
  'master template': {
    list: 'agentinfo?agentname= and assigntemplatetoagent?subTemplateNames=',
    takes: 'take comma-separated lists',
    trims: 'trim the whitespace around each item of their lists',
    drops: 'drop empty items of their lists',
    lost: 'agent and template names, which share one namespace, follow their rule',
    garbled: 'this master template would not come back as it was named'
  },
  'custom label': {
    list: 'removecustomlabel?labelNames=',
    takes: 'takes a comma-separated list',
    trims: 'trims the whitespace around each item of its list',
    drops: 'drops empty items of its list',
    lost: 'this label could never be removed',
    garbled: 'this label would not come back as it was named'
  }
}

/** The reason a rule exists for a kind of name, and how to fix the name. */
function reasonOf(kind: NameKind, rule: NameRule): string {
  const a = ADDRESSED[kind]
  switch (rule) {
    case 'empty':
      return `${a.list} ${a.drops}, so ${a.lost}; give a name of at least one character`
    case 'comma':
      return `${a.list} ${a.takes}, so ${a.lost}; choose a name without commas`
    case 'leading whitespace':
      return `${a.list} ${a.trims}, so ${a.lost}; remove the leading whitespace`
    case 'trailing whitespace':
      return `${a.list} ${a.trims}, so ${a.lost}; remove the trailing whitespace`
    case 'control character':
      return `control characters are invisible where names are shown and XML answers cannot carry them (a NUL comes back as U+FFFD), so ${a.garbled}; remove the control character`
    case 'noncharacter':
      return `XML allows neither U+FFFE nor U+FFFF, and an XML answer shows U+FFFD in their place, so ${a.garbled}; remove the character`
    case 'lone surrogate':
      return `half of a UTF-16 surrogate pair is not a character: a URL cannot carry it (percent-encoding is UTF-8) and neither can an XML answer, so ${a.lost}; fix the encoding of the name`
  }
}

/** Readable names of the characters the rule refuses (Unicode names or their usual abbreviations). */
const CHARACTER_NAMES: Record<number, string> = {
  0x00: 'NUL character',
  0x07: 'BEL character',
  0x08: 'backspace',
  0x09: 'tab',
  0x0a: 'line feed',
  0x0b: 'vertical tab',
  0x0c: 'form feed',
  0x0d: 'carriage return',
  0x1b: 'ESC character',
  0x20: 'space',
  0x2c: 'comma',
  0x7f: 'DEL character',
  0x85: 'NEL character',
  0xa0: 'no-break space',
  0x1680: 'ogham space mark',
  0x2028: 'line separator',
  0x2029: 'paragraph separator',
  0x202f: 'narrow no-break space',
  0x205f: 'medium mathematical space',
  0x3000: 'ideographic space',
  0xfeff: 'zero-width no-break space (byte order mark)',
  0xfffe: 'noncharacter',
  0xffff: 'noncharacter'
}

/** e.g. `a comma (U+002C)`, `a lone high surrogate (U+D800)` */
export function describeCharacter(codePoint: number): string {
  const hex = codePoint.toString(16).toUpperCase().padStart(4, '0')
  const name =
    CHARACTER_NAMES[codePoint] ??
    (codePoint <= 0x1f
      ? 'control character'
      : codePoint >= 0x80 && codePoint <= 0x9f
        ? 'C1 control character'
        : codePoint >= 0xd800 && codePoint <= 0xdbff
          ? 'lone high surrogate'
          : codePoint >= 0xdc00 && codePoint <= 0xdfff
            ? 'lone low surrogate'
            : codePoint >= 0x2000 && codePoint <= 0x200a
              ? 'typographic space'
              : 'character')
  return `${/^[aeio]/i.test(name) ? 'an' : 'a'} ${name} (U+${hex})`
}

function problemText(problem: NameProblem): string {
  const character = describeCharacter(problem.codePoint)
  switch (problem.rule) {
    case 'empty':
      return 'is empty'
    case 'leading whitespace':
      return `starts with ${character} at position ${problem.position}`
    case 'trailing whitespace':
      return `ends with ${character} at position ${problem.position}`
    default:
      return `has ${character} at position ${problem.position}`
  }
}

/** Longest name shown whole in a message; a longer one is cut (its length is said). */
const SHOWN_MAX = 64

/** The name as JSON text (control characters and lone surrogates escaped), cut when long. */
function shownName(name: string): string {
  if (name.length <= SHOWN_MAX) return JSON.stringify(name)
  let cut = name.slice(0, SHOWN_MAX)
  // Do not split a surrogate pair into a lone half that the name does not have.
  if (/[\uD800-\uDBFF]$/.test(cut) && /[\uDC00-\uDFFF]/.test(name[SHOWN_MAX])) cut = cut.slice(0, -1)
  return `${JSON.stringify(`${cut}…`)} (${name.length} UTF-16 code units)`
}

/** E_INVALID_NAME for a name that breaks the rule, else undefined. */
export function nameError(kind: NameKind, name: string): ApiError | undefined {
  const problem = findNameProblem(name)
  if (problem === undefined) return undefined
  return apiError('E_INVALID_NAME', { kind, name: shownName(name), problem: problemText(problem), reason: reasonOf(kind, problem.rule) })
}

/** Throws E_INVALID_NAME for a name that breaks the rule. */
export function requireUsableName(kind: NameKind, name: string): void {
  const error = nameError(kind, name)
  if (error !== undefined) throw error
}
