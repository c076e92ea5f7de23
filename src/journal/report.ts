/**
 * The client report: what the journal says about the client. A pure function of the journal's
 * entries, so it can be computed for a live simulator, an embedded one, or a saved journal.
 *
 * Retries: a call is a retry when the same call (method, operation, parameters, body) comes
 * again within RETRY_WINDOW_MS of the end of an attempt that failed: a 5xx, 408 or 429, an
 * injected fault, or a multi-agent answer with `errors`. Attempts of one call form a chain;
 * the gaps between them (end of one answer to the next request) show whether the client backs
 * off: with two or more gaps, backoff means the gaps grow. Gaps come from the times the journal
 * recorded (`wallMs`, `durationMs`), never from a clock read here, so a saved journal gets the
 * same verdict later and a test decides the gaps by the times its requests are recorded at.
 *
 * Findings are sentences with a level: a `problem` is something the client does wrong (the
 * verdict fails), a `warning` something to look at that may be meant (it passes with
 * warnings), a `note` what is worth knowing. Each names the requests that show it (their
 * journal ids), and the report carries those requests' entries, bodies included, so a reader
 * sees what was sent and answered.
 */
import { AGENT_STATES } from '../protocol/states.js'
import { preferenceOf } from '../protocol/negotiation.js'
import { OPERATIONS } from '../protocol/operations.js'
import { CUT_BYTES } from './journal-bounds.js'
import type { JournalEntry } from './journal.js'
import { buildTimeline, type Timeline } from './report-timeline.js'
import { RULES_BY_ID } from './rules.js'
import { minOf } from '../lib/extremes.js'

/** Attempts of one call further apart than this (wall ms) are separate calls, not retries. */
export const RETRY_WINDOW_MS = 30_000
/** A retry sooner than this after the failed answer is "immediate". */
export const IMMEDIATE_MS = 100
/** With backoff, the last gap of a chain is at least this multiple of the first. */
export const BACKOFF_GROWTH = 1.5
/** A finding names at most this many requests. */
export const FINDING_REQUESTS = 5

/** Operations of the spec proper; certificateinfo and viewagentortemplate are referenced ones. */
const REFERENCED = new Set(['certificateinfo', 'viewagentortemplate'])
const NON_IDEMPOTENT = new Set(['POST', 'PUT', 'DELETE'])

export interface RetryChain {
  operation: string
  method: string
  /** journal ids of the attempts, first one included */
  attempts: number[]
  /** statuses of the attempts */
  statuses: number[]
  /** wall ms from each failed answer to the next attempt */
  gapsMs: number[]
  /** grows: backoff seen; flat: gaps did not grow; single: one retry, cannot tell */
  backoff: 'grows' | 'flat' | 'single'
  nonIdempotent: boolean
  /** the last attempt succeeded */
  recovered: boolean
}

/**
 * What the client did after a multi-agent answer with `errors` (partialFailures): `not-retryable`
 * when no failed agent can take the command later (gone, unmanaged: reporting it is all a client
 * can do), `gave-up` when the answer was itself a retry of the failed agents alone and the client
 * stopped there.
 */
export type PartialReaction = 'failed-only' | 'all-again' | 'other' | 'ignored' | 'not-retryable' | 'gave-up'

export type FindingLevel = 'problem' | 'warning' | 'note'

export interface Finding {
  level: FindingLevel
  /** stable id of the kind of finding, e.g. `rule:list-repeated`, `no-backoff` */
  id: string
  /** a few words: what the verdict's reason names it by */
  title: string
  text: string
  /** journal ids of requests that show it (at most FINDING_REQUESTS), oldest first; their entries are in `requests` */
  requests: number[]
}

export type Outcome = 'pass' | 'pass-with-warnings' | 'fail'

export interface Verdict {
  /** fail: a problem found; pass-with-warnings: warnings only; pass: neither */
  outcome: Outcome
  /** one sentence: why */
  reason: string
  counts: { requests: number; problems: number; warnings: number; notes: number }
}

export interface ClientReport {
  generatedAt: string
  verdict: Verdict
  journal: { entries: number; dropped: number; capacity: number; strict: boolean; from: string | null; to: string | null }
  operations: Array<{ operation: string; count: number; statuses: Record<string, number> }>
  violations: Array<{
    rule: string
    sentence: string
    count: number
    rejected: number
    example: { id: number; method: string; path: string; query: Record<string, string[]>; detail: string }
    /** the first requests that broke it (journal ids) */
    requests: number[]
  }>
  retries: {
    chains: RetryChain[]
    backoff: 'present' | 'missing' | 'not-seen'
    immediate: number
    nonIdempotent: number
    fastestGapMs: number | null
  }
  faults: { injected: number; byKind: Record<string, number>; retried: number; notRetried: number; requests: number[] }
  partialFailures: {
    answers: number
    reactions: Record<PartialReaction, number>
    examples: Array<{ id: number; operation: string; failed: string[]; reaction: PartialReaction; followUp: number | null }>
  }
  coverage: {
    operations: { used: string[]; unused: string[] }
    formats: { json: number; xml: number; bySuffix: number; byAccept: number; byContentType: number; byDefault: number }
    agentStates: { seen: string[]; unseen: string[] }
    errorCodes: Record<string, number>
    statuses: Record<string, number>
  }
  /** requests answered 4xx for a reason no rule names (401, 400 validation, 409, …) */
  refused: {
    requests: number
    byCode: Record<string, number>
    examples: number[]
    /** refused requests sent again unchanged (the same callKey) within the retry window, refused the same way */
    again: number
    /** the first of those repeats, with the refusal before each */
    againExamples: number[]
  }
  timeline: Timeline
  findings: Finding[]
  /** the journal entries of the requests findings name, oldest first */
  requests: JournalEntry[]
}

export interface ReportContext {
  capacity: number
  dropped: number
  strict: boolean
  now?: Date
}

const failed = (e: JournalEntry): boolean =>
  e.status >= 500 || e.status === 408 || e.status === 429 || e.status === 0 || e.fault !== undefined || e.partialErrors.length > 0

const endOf = (e: JournalEntry): number => e.wallMs + e.durationMs

export function buildReport(entries: readonly JournalEntry[], context: ReportContext): ClientReport {
  const chains = retryChains(entries)
  const partial = partialFailures(entries)
  const report: ClientReport = {
    generatedAt: (context.now ?? new Date()).toISOString(),
    verdict: { outcome: 'pass', reason: '', counts: { requests: entries.length, problems: 0, warnings: 0, notes: 0 } },
    journal: {
      entries: entries.length,
      dropped: context.dropped,
      capacity: context.capacity,
      strict: context.strict,
      from: entries[0]?.time ?? null,
      to: entries.at(-1)?.time ?? null
    },
    operations: operationCounts(entries),
    violations: violations(entries),
    retries: retrySummary(chains),
    faults: faultSummary(entries),
    partialFailures: partial,
    coverage: coverage(entries),
    refused: refused(entries),
    timeline: buildTimeline(entries),
    findings: [],
    requests: []
  }
  report.findings = findings(report)
  report.verdict = verdictOf(report.findings, entries.length)
  const named = new Set(report.findings.flatMap((f) => f.requests))
  report.requests = entries.filter((e) => named.has(e.id))
  return report
}

/** The verdict of these findings over this many requests. */
export function verdictOf(found: readonly Finding[], requests: number): Verdict {
  const problems = found.filter((f) => f.level === 'problem')
  const warnings = found.filter((f) => f.level === 'warning')
  const counts = { requests, problems: problems.length, warnings: warnings.length, notes: found.length - problems.length - warnings.length }
  const inRequests = `${requests} request${requests === 1 ? '' : 's'}`
  const titles = (list: Finding[]) => list.map((f) => f.title).join('; ')
  if (problems.length > 0) {
    return { outcome: 'fail', reason: `${plural(problems.length, 'problem')} in ${inRequests}: ${titles(problems)}.`, counts }
  }
  if (warnings.length > 0) {
    return { outcome: 'pass-with-warnings', reason: `No problems in ${inRequests}; ${plural(warnings.length, 'warning')}: ${titles(warnings)}.`, counts }
  }
  return { outcome: 'pass', reason: `No problems or warnings in ${inRequests}.`, counts }
}

const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`

function operationCounts(entries: readonly JournalEntry[]): ClientReport['operations'] {
  const byOperation = new Map<string, { count: number; statuses: Record<string, number> }>()
  for (const e of entries) {
    const name = e.operation || '(no operation)'
    const row = byOperation.get(name) ?? { count: 0, statuses: {} }
    row.count++
    row.statuses[e.status] = (row.statuses[e.status] ?? 0) + 1
    byOperation.set(name, row)
  }
  return [...byOperation].map(([operation, row]) => ({ operation, ...row })).sort((a, b) => b.count - a.count || a.operation.localeCompare(b.operation))
}

function violations(entries: readonly JournalEntry[]): ClientReport['violations'] {
  const byRule = new Map<string, ClientReport['violations'][number]>()
  for (const e of entries) {
    for (const v of e.violations) {
      let row = byRule.get(v.rule)
      if (row === undefined) {
        row = {
          rule: v.rule,
          sentence: RULES_BY_ID.get(v.rule)?.sentence ?? '',
          count: 0,
          rejected: 0,
          example: { id: e.id, method: e.method, path: e.path, query: e.query, detail: v.detail },
          requests: []
        }
        byRule.set(v.rule, row)
      }
      row.count++
      if (row.requests.length < FINDING_REQUESTS && row.requests.at(-1) !== e.id) row.requests.push(e.id)
      if (e.rejected) row.rejected++
    }
  }
  return [...byRule.values()].sort((a, b) => b.count - a.count || a.rule.localeCompare(b.rule))
}

export function retryChains(entries: readonly JournalEntry[]): RetryChain[] {
  const last = new Map<string, { entry: JournalEntry; chain: JournalEntry[] | undefined }>()
  const chains: JournalEntry[][] = []
  for (const e of entries) {
    const previous = last.get(e.callKey)
    if (previous !== undefined && failed(previous.entry) && e.wallMs - endOf(previous.entry) <= RETRY_WINDOW_MS) {
      let chain = previous.chain
      if (chain === undefined) {
        chain = [previous.entry]
        chains.push(chain)
      }
      chain.push(e)
      last.set(e.callKey, { entry: e, chain })
    } else {
      last.set(e.callKey, { entry: e, chain: undefined })
    }
  }
  return chains.map((attempts) => {
    const gapsMs = attempts.slice(1).map((e, i) => Math.max(0, Math.round(e.wallMs - endOf(attempts[i]))))
    const first = attempts[0]
    return {
      operation: first.operation,
      method: first.method,
      attempts: attempts.map((e) => e.id),
      statuses: attempts.map((e) => e.status),
      gapsMs,
      backoff: backoffOf(gapsMs),
      nonIdempotent: NON_IDEMPOTENT.has(first.method),
      recovered: !failed(attempts[attempts.length - 1])
    }
  })
}

/** With two or more gaps: they grow when none shrinks by more than jitter and the last is clearly longer. */
export function backoffOf(gapsMs: readonly number[]): RetryChain['backoff'] {
  if (gapsMs.length < 2) return 'single'
  const neverShrinks = gapsMs.every((gap, i) => i === 0 || gap >= gapsMs[i - 1] * 0.8)
  const grew = gapsMs[gapsMs.length - 1] >= gapsMs[0] * BACKOFF_GROWTH && gapsMs[gapsMs.length - 1] - gapsMs[0] >= 20
  return neverShrinks && grew ? 'grows' : 'flat'
}

function retrySummary(chains: RetryChain[]): ClientReport['retries'] {
  const judged = chains.filter((c) => c.backoff !== 'single')
  const gaps = chains.flatMap((c) => c.gapsMs)
  return {
    chains,
    backoff: judged.length === 0 ? 'not-seen' : judged.some((c) => c.backoff === 'flat') ? 'missing' : 'present',
    immediate: gaps.filter((g) => g < IMMEDIATE_MS).length,
    nonIdempotent: chains.filter((c) => c.nonIdempotent).length,
    fastestGapMs: gaps.length === 0 ? null : minOf(gaps)
  }
}

function faultSummary(entries: readonly JournalEntry[]): ClientReport['faults'] {
  const byKind: Record<string, number> = {}
  const requests: number[] = []
  let retried = 0
  let notRetried = 0
  entries.forEach((e, i) => {
    if (e.fault === undefined) return
    byKind[e.fault] = (byKind[e.fault] ?? 0) + 1
    if (requests.length < FINDING_REQUESTS) requests.push(e.id)
    const again = entries.slice(i + 1).find((n) => n.callKey === e.callKey && n.wallMs - endOf(e) <= RETRY_WINDOW_MS)
    if (again === undefined) notRetried++
    else retried++
  })
  return { injected: retried + notRetried, byKind, retried, notRetried, requests }
}

/**
 * Requests refused with a 4xx that no rule names: wrong credentials, invalid values, names
 * taken. A client's own test suite may send them on purpose, so they are a warning.
 */
function refused(entries: readonly JournalEntry[]): ClientReport['refused'] {
  const byCode: Record<string, number> = {}
  const examples: number[] = []
  const againExamples: number[] = []
  /** per call, the last refusal of it */
  const lastRefusal = new Map<string, JournalEntry>()
  let count = 0
  let again = 0
  for (const e of entries) {
    if (e.status < 400 || e.status >= 500 || e.violations.length > 0 || e.fault !== undefined) {
      lastRefusal.delete(e.callKey)
      continue
    }
    count++
    const codes = e.errorCodes.length === 0 ? [String(e.status)] : e.errorCodes
    for (const code of codes) byCode[code] = (byCode[code] ?? 0) + 1
    if (examples.length < FINDING_REQUESTS) examples.push(e.id)
    // The same request again after it was refused the same way: a 4xx does not pass with time.
    const before = lastRefusal.get(e.callKey)
    if (before !== undefined && before.status === e.status && !PASSES_WITH_TIME.has(e.status) && e.wallMs - endOf(before) <= RETRY_WINDOW_MS) {
      again++
      if (againExamples.length < FINDING_REQUESTS) againExamples.push(before.id, e.id)
    }
    lastRefusal.set(e.callKey, e)
  }
  return { requests: count, byCode, examples, again, againExamples: againExamples.slice(0, FINDING_REQUESTS) }
}

/** 4xx statuses a later try may not get: a timeout, a rate limit. */
const PASSES_WITH_TIME: ReadonlySet<number> = new Set([408, 429])

/** Items of a comma-delimited list parameter; an item cut short with its URL (journal-bounds.ts) is left out. */
const listOf = (values: string[] | undefined): string[] =>
  (values ?? [])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '' && !CUT_BYTES.test(v))

/** A per-agent error no later attempt mends: the agent is gone, or unmanaged (mutations.ts, refusal). */
const NOT_RETRYABLE = /no longer exists|is unmanaged/

function partialFailures(entries: readonly JournalEntry[]): ClientReport['partialFailures'] {
  const reactions: Record<PartialReaction, number> = { 'failed-only': 0, 'all-again': 0, other: 0, ignored: 0, 'not-retryable': 0, 'gave-up': 0 }
  const examples: ClientReport['partialFailures']['examples'] = []
  /** answers that were a retry of an earlier answer's failed agents alone */
  const retriesOfFailed = new Set<JournalEntry>()
  let answers = 0
  entries.forEach((e, i) => {
    if (e.partialErrors.length === 0) return
    answers++
    const failedUuids = new Set(e.partialErrors.map((p) => p.uuid).filter((u): u is string => u !== undefined))
    const asked = new Set(listOf(e.query.agentUuids))
    const next = entries.slice(i + 1).find((n) => n.operation === e.operation && n.wallMs - endOf(e) <= RETRY_WINDOW_MS)
    let reaction: PartialReaction = 'ignored'
    if (next !== undefined) {
      const now = listOf(next.query.agentUuids)
      if (now.length > 0 && now.every((u) => failedUuids.has(u)) && now.length < Math.max(asked.size, failedUuids.size + 1)) {
        reaction = 'failed-only'
        retriesOfFailed.add(next)
      } else if (now.length === asked.size && now.every((u) => asked.has(u))) reaction = 'all-again'
      // A next call for none of the failed agents left them as they were.
      else if (now.some((u) => failedUuids.has(u))) reaction = 'other'
    }
    if (reaction === 'ignored' && e.partialErrors.every((p) => NOT_RETRYABLE.test(p.message))) reaction = 'not-retryable'
    else if (reaction === 'ignored' && retriesOfFailed.has(e)) reaction = 'gave-up'
    reactions[reaction]++
    if (examples.length < 20) {
      examples.push({ id: e.id, operation: e.operation, failed: e.partialErrors.map((p) => p.agent), reaction, followUp: next?.id ?? null })
    }
  })
  return { answers, reactions, examples }
}

function coverage(entries: readonly JournalEntry[]): ClientReport['coverage'] {
  const used = new Set(entries.filter((e) => e.status < 400 && e.operation !== '').map((e) => e.operation))
  const formats = { json: 0, xml: 0, bySuffix: 0, byAccept: 0, byContentType: 0, byDefault: 0 }
  const states = new Set<string>()
  const errorCodes: Record<string, number> = {}
  const statuses: Record<string, number> = {}
  for (const e of entries) {
    formats[e.format]++
    const preference = e.accept === undefined ? undefined : preferenceOf(e.accept)
    if (e.suffix !== undefined) formats.bySuffix++
    else if (preference !== undefined && preference !== null) formats.byAccept++
    else if (e.contentType !== undefined) formats.byContentType++
    else formats.byDefault++
    for (const s of e.agentStates) states.add(s)
    for (const code of e.errorCodes) errorCodes[code] = (errorCodes[code] ?? 0) + 1
    if (e.partialErrors.length > 0) errorCodes['partial failure (errors in a 200 answer)'] = (errorCodes['partial failure (errors in a 200 answer)'] ?? 0) + 1
    statuses[e.status] = (statuses[e.status] ?? 0) + 1
  }
  const all = Object.keys(OPERATIONS)
  return {
    operations: { used: all.filter((o) => used.has(o)), unused: all.filter((o) => !used.has(o)) },
    formats,
    agentStates: { seen: AGENT_STATES.filter((s) => states.has(s)), unseen: AGENT_STATES.filter((s) => !states.has(s)) },
    errorCodes,
    statuses
  }
}

function findings(report: ClientReport): Finding[] {
  const out: Finding[] = []
  const add = (level: FindingLevel, id: string, title: string, text: string, requests: readonly number[] = []) =>
    out.push({ level, id, title, text, requests: [...new Set(requests)].sort((a, b) => a - b).slice(0, FINDING_REQUESTS) })
  const j = report.journal
  if (j.entries === 0) {
    const why =
      j.capacity === 0
        ? 'The journal is off (--journal-size 0), so there is nothing to judge: start fleetsim with a --journal-size, run the client, then read the report again.'
        : 'No requests were journalled, so there is nothing to judge: run the client against fleetsim, then read the report again.'
    add('warning', 'no-requests', 'no requests journalled', why)
  }
  if (j.dropped > 0) {
    add(
      'warning',
      'journal-dropped',
      'older requests dropped',
      `The journal dropped ${plural(j.dropped, 'older request')} (--journal-size, --journal-max-bytes): this report judges only the newest ${j.entries}.`
    )
  }
  for (const v of report.violations) {
    const query = Object.entries(v.example.query).map(([k, values]) => values.map((x) => `${k}=${x}`).join('&')).join('&')
    add(
      'problem',
      `rule:${v.rule}`,
      `rule ${v.rule} broken ${v.count === 1 ? 'once' : `${v.count} times`}`,
      `Rule ${v.rule} broken ${v.count} time${v.count === 1 ? '' : 's'}: ${v.sentence} Example #${v.example.id}: ${v.example.method} ${v.example.path}${query === '' ? '' : `?${query}`} (${v.example.detail}).`,
      v.requests
    )
  }
  const { retries } = report
  if (retries.backoff === 'missing') {
    const flat = retries.chains.filter((c) => c.backoff === 'flat')
    const example = flat[0]
    add(
      'problem',
      'no-backoff',
      'retries without backoff',
      `No backoff: ${flat.length} retry chain${flat.length === 1 ? '' : 's'} retried at steady or shrinking intervals; e.g. ${example.method} ${example.operation} tried ${example.attempts.length} times with gaps of ${example.gapsMs.join(', ')} ms. Wait longer after each failure (exponential backoff with jitter).`,
      example.attempts
    )
  } else if (retries.backoff === 'present') {
    add('note', 'backoff', 'backoff seen', 'Backoff seen: the gaps between retries grow.', retries.chains.find((c) => c.backoff === 'grows')?.attempts)
  }
  if (retries.immediate > 0) {
    // The attempts that came too soon: gap k of a chain comes before attempt k + 1.
    const soon = retries.chains.flatMap((c) => c.gapsMs.flatMap((gap, k) => (gap < IMMEDIATE_MS ? [c.attempts[k + 1]] : [])))
    add(
      'problem',
      'immediate-retry',
      `${retries.immediate === 1 ? 'a retry' : `${retries.immediate} retries`} within ${IMMEDIATE_MS} ms`,
      `${retries.immediate} retr${retries.immediate === 1 ? 'y' : 'ies'} came less than ${IMMEDIATE_MS} ms after the failed answer.`,
      soon
    )
  }
  if (retries.nonIdempotent > 0) {
    const c = retries.chains.find((x) => x.nonIdempotent) as RetryChain
    add(
      'warning',
      'non-idempotent-retry',
      'non-idempotent call retried',
      `Retried a non-idempotent call after a failure ${retries.nonIdempotent} time${retries.nonIdempotent === 1 ? '' : 's'} (e.g. ${c.method} ${c.operation}); the first attempt may have taken effect, check the state before repeating it.`,
      c.attempts
    )
  }
  const p = report.partialFailures
  const reacted = (reaction: PartialReaction) =>
    p.examples.filter((e) => e.reaction === reaction).flatMap((e) => (e.followUp === null ? [e.id] : [e.id, e.followUp]))
  if (p.reactions.ignored > 0) {
    // A warning: a client that shows the errors to its user did right, and nothing on the wire tells it from one that dropped them.
    add(
      'warning',
      'errors-ignored',
      'partial failures not followed up',
      `${p.reactions.ignored} multi-agent answer${p.reactions.ignored === 1 ? '' : 's'} with errors got no follow-up for the failed agents. ` +
        'Each item of `errors` is an agent the operation did not reach: call again for those whose error may pass (not reported in yet, not connected, did not reconnect) after a pause, and report the others.',
      reacted('ignored')
    )
  }
  if (p.reactions['all-again'] > 0) {
    add(
      'problem',
      'errors-retried-all',
      'every agent retried after a partial failure',
      `After ${p.reactions['all-again']} partial failure${p.reactions['all-again'] === 1 ? '' : 's'} the client repeated the call for every agent, not only the failed ones.`,
      reacted('all-again')
    )
  }
  if (p.reactions['failed-only'] > 0) {
    add(
      'note',
      'errors-acted-on',
      'failed agents retried',
      `After ${p.reactions['failed-only']} partial failure${p.reactions['failed-only'] === 1 ? '' : 's'} the client retried only the failed agents.`,
      reacted('failed-only')
    )
  }
  const r = report.refused
  if (r.requests > 0) {
    const codes = Object.entries(r.byCode)
      .map(([code, n]) => `${code} ×${n}`)
      .join(', ')
    add(
      'warning',
      'refused',
      `${plural(r.requests, 'request')} refused`,
      `${plural(r.requests, 'request')} ${r.requests === 1 ? 'was' : 'were'} refused with a 4xx no rule names (${codes}); fine if the client's tests meant them, else a bug in the client.`,
      r.examples
    )
  }
  if (r.again > 0) {
    add(
      'warning',
      'refused-again',
      `${r.again === 1 ? 'a refused request' : `${r.again} refused requests`} sent again unchanged`,
      `${plural(r.again, 'request')} repeated a request within ${RETRY_WINDOW_MS / 1000} s of the same request's 4xx, and got it again: a refusal does not pass with time, as a 503 may. Read the message of the first and fix the request, or, polling for something still to come (an agent not yet added), wait longer between tries.`,
      r.againExamples
    )
  }
  if (report.faults.injected > 0) {
    add(
      'note',
      'faults',
      'injected faults',
      `${report.faults.injected} injected fault${report.faults.injected === 1 ? '' : 's'}: ${report.faults.retried} retried, ${report.faults.notRetried} not.`,
      report.faults.requests
    )
  }
  const unused = report.coverage.operations.unused.filter((o) => !REFERENCED.has(o))
  // Without requests there is no coverage to speak of: the warning above says so.
  if (j.entries > 0 && unused.length > 0) add('note', 'coverage-operations', 'operations never used', `Operations of the spec never used successfully: ${unused.join(', ')} (the coverage lists the referenced ones too).`)
  if (report.coverage.agentStates.unseen.length > 0 && report.coverage.agentStates.seen.length > 0) {
    add('note', 'coverage-states', 'agent states never seen', `Agent states never seen in an answer: ${report.coverage.agentStates.unseen.join(', ')}.`)
  }
  return out
}
