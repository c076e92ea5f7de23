/**
 * What the log looks like on a terminal: one line per log record, the frequent ones led by
 * the figures a person watches for. pino-pretty prints the line (time, level, message) with
 * `singleLine`, and the record's remaining fields as JSON after the message:
 *
 *   [10:42:07.311] INFO: GET agentinfo 200 1.2 ms (req-7)
 *   [10:42:09.520] INFO: fleet: 1,000 agents, ONLINE 975, OFFLINE 9, ERROR 1, …; 47 changes: OFFLINE->ONLINE 27, …; virtual time +31m28s
 *   [10:42:01.002] INFO: building 1,000,000 agents…
 *   [10:42:01.150] INFO: created a certificate authority {"caPath":"…","fingerprint":"…"}
 *
 * A record with a headline (terminalHeadline) gets it as its message, and the fields the
 * headline shows are left out of the JSON, so nothing is said twice. pino-pretty's own
 * `messageFormat` cannot leave fields out, hence this small destination in front of its
 * formatter. Only the terminal sees this: JSON output (not a TTY) is pino's, unchanged.
 */
import type { DestinationStream } from 'pino'
import { prettyFactory } from 'pino-pretty'
import { formatSeconds } from '../lib/units.js'
import { AGENT_STATES } from '../protocol/states.js'
import { splitSuffix } from '../protocol/operations.js'
import { FLEET_BUILDING, FLEET_BUILT } from './build-log.js'
import { FLEET_SUMMARY } from './fleet-log.js'
import { REQUEST_COMPLETED, REQUEST_ERRORED } from './request-log.js'

/** Transitions named in a summary line; the rest are counted as "+N more". */
const SUMMARY_TRANSITIONS = 3

type LogRecord = Record<string, unknown>

export interface Headline {
  /** the line's message */
  text: string
  /** fields the text shows, left out of the JSON after it */
  shown: readonly string[]
}

/** The short message for a frequent record, or undefined to print the record as it is. */
export function terminalHeadline(record: LogRecord): Headline | undefined {
  switch (record.msg) {
    case REQUEST_COMPLETED:
    case REQUEST_ERRORED:
      return requestHeadline(record)
    case FLEET_SUMMARY:
      return summaryHeadline(record)
    case FLEET_BUILDING:
      return typeof record.agents === 'number' ? { text: `building ${count(record.agents)} agents…`, shown: ['agents'] } : undefined
    case FLEET_BUILT:
      return typeof record.agents === 'number' && typeof record.seconds === 'number'
        ? { text: `built ${count(record.agents)} agents in ${record.seconds.toFixed(1)} s`, shown: ['agents', 'seconds'] }
        : undefined
    default:
      return undefined
  }
}

/** `GET agentinfo 200 1.2 ms (req-7)`; the path only when it is not the operation's own (with or without its suffix). */
function requestHeadline(record: LogRecord): Headline | undefined {
  const { method, operation, status, responseTimeMs, path, reqId } = record
  if (typeof method !== 'string' || typeof operation !== 'string' || typeof status !== 'number' || typeof responseTimeMs !== 'number') return undefined
  const parts = [method, operation, String(status), `${responseTimeMs.toFixed(1)} ms`]
  const shown = ['method', 'operation', 'status', 'responseTimeMs']
  if (typeof path === 'string') {
    // Its suffix forms (`agentinfo.json`, `.xml`) are the operation's own paths too.
    const last = path.slice(path.lastIndexOf('/') + 1)
    if (splitSuffix(last).name !== operation) parts.push(path)
    shown.push('path')
  }
  if (typeof reqId === 'string') {
    parts.push(`(${reqId})`)
    shown.push('reqId')
  }
  const text = parts.join(' ')
  return { text: record.msg === REQUEST_ERRORED ? `${REQUEST_ERRORED}: ${text}` : text, shown }
}

/** `fleet: 1,000 agents, ONLINE 975, ERROR 1; 4 changes: ONLINE->ERROR 3, ERROR->ONLINE 1; virtual time +31m28s` */
function summaryHeadline(record: LogRecord): Headline | undefined {
  const { byState, transitions, second } = record
  if (!isCounts(byState) || !isCounts(transitions) || typeof second !== 'number') return undefined
  const agents = Object.values(byState).reduce((sum, n) => sum + n, 0)
  // States in their usual order, empty ones left out.
  const states = AGENT_STATES.filter((state) => (byState[state] ?? 0) > 0).map((state) => `${state} ${count(byState[state])}`)
  // The busiest transitions first.
  const moves = Object.entries(transitions).sort(([, a], [, b]) => b - a)
  const changes = moves.reduce((sum, [, n]) => sum + n, 0)
  const named = moves.slice(0, SUMMARY_TRANSITIONS).map(([move, n]) => `${move} ${count(n)}`)
  if (moves.length > SUMMARY_TRANSITIONS) named.push(`+${moves.length - SUMMARY_TRANSITIONS} more`)
  const text = `fleet: ${[`${count(agents)} agents`, ...states].join(', ')}; ${count(changes)} changes: ${named.join(', ')}; virtual time +${formatSeconds(second)}`
  return { text, shown: ['byState', 'transitions', 'second'] }
}

function isCounts(value: unknown): value is Record<string, number> {
  return typeof value === 'object' && value !== null && Object.values(value).every((n) => typeof n === 'number')
}

const count = (n: number): string => n.toLocaleString('en-US')

/** The record as the terminal prints it: its headline as the message, the fields it shows left out. */
function forTerminal(record: LogRecord): LogRecord {
  const headline = terminalHeadline(record)
  if (headline === undefined) return record
  const rest: LogRecord = { ...record, msg: headline.text }
  for (const key of headline.shown) delete rest[key]
  return rest
}

export interface TerminalLogOptions {
  /** ANSI colours (default: when `out` is a TTY) */
  colorize?: boolean
}

/**
 * A pino destination that writes each JSON record pino gives it to `out` as one line
 * (errors with a stack take more). createLogger uses it when stdout is a terminal.
 */
export function terminalDestination(out: { write(text: string): unknown; isTTY?: boolean }, options: TerminalLogOptions = {}): DestinationStream {
  const prettify = prettyFactory({
    colorize: options.colorize ?? out.isTTY === true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid',
    singleLine: true
  })
  return {
    write(line: string): void {
      let record: unknown
      try {
        record = JSON.parse(line)
      } catch {
        out.write(line)
        return
      }
      out.write(prettify(typeof record === 'object' && record !== null ? forTerminal(record as LogRecord) : line))
    }
  }
}
