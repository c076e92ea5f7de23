/**
 * The API fault injection plugin: applies the running scenario's fault rules to the manager's
 * operations. Registered at the root (skip-override, as fastify-plugin would) so its hooks see
 * every route, including those registered after it.
 *
 * Only routes that name an operation (`routeOptions.config.operation`, set by the route kit
 * for every REST operation) are touched: `/__admin/*`, `/metrics` and `/openapi.json` never
 * are, so the simulator can always be controlled and observed while its API misbehaves.
 *
 * Where each fault acts:
 * - preHandler (after authentication and validation, before the operation runs): latency,
 *   then the answer-replacing faults: failFirst, reset, error. A call that a rule answers has
 *   no effect on the fleet.
 * - onSend (the operation has run): stall holds the finished answer; slow and truncated
 *   bodies shape how it is sent.
 */
import { waitWall } from '../lib/wall-wait.js'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Readable } from 'node:stream'
import { sendEnvelope } from '../http/reply.js'
import '../protocol/request-context.js'
import { payloadBytes, slowBody, truncatedBody, type Wait } from './body.js'
import { planCall, ruleApplies, type FaultPlan } from './decide.js'
import { FaultState, type FaultSource } from './state.js'

export interface FaultsPluginOptions {
  /** the fault state to apply (and share with the admin API); default: a new one over `engine` */
  state?: FaultState
  engine?: FaultSource
  /** how wall time is waited for; tests pass a recorder instead of sleeping */
  wait?: Wait
}

/** Bytes a truncated streamed body keeps (a buffered body keeps half of itself). */
const TRUNCATED_STREAM_BYTES = 4096

function isStream(payload: unknown): payload is Readable {
  return typeof payload === 'object' && payload !== null && typeof (payload as Readable).pipe === 'function'
}

async function faultsPluginImpl(app: FastifyInstance, options: FaultsPluginOptions): Promise<void> {
  const state = options.state ?? (options.engine !== undefined ? new FaultState(options.engine) : undefined)
  if (state === undefined) throw new TypeError('faultsPlugin needs a `state` or an `engine`')
  const wait: Wait = options.wait ?? waitWall
  // Plans of calls still being answered; a WeakMap so nothing is added to every request.
  const plans = new WeakMap<FastifyRequest, FaultPlan>()

  // Callback hooks: a call no rule touches (nearly all of them) costs a few comparisons, not a
  // promise; only planned faults go through async code.
  app.addHook('preHandler', function injectFault(request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) {
    if (!state.active()) return done()
    const operation = request.routeOptions.config?.operation
    if (operation === undefined || operation === '') return done()
    const rules = state.rules()
    const second = state.source.second()
    // Calls that meet no rule do not move the sequence, so adding traffic to an unaffected
    // operation does not change which calls of the affected ones meet a fault.
    if (!rules.some((rule) => ruleApplies(rule, operation, second))) return done()
    const plan = planCall(rules, operation, second, { seed: state.source.identity.seed, sequence: state.nextSequence(), ruleKeys: state.drawKeys() }, {
      left: (k) => state.failFirstLeft(k),
      take: (k) => state.takeFailFirst(k)
    })
    for (const kind of plan.kinds) state.count(kind, operation)
    // The journal's `fault` of this call (src/journal/recorder.ts): exact even when calls of one
    // operation overlap, which the recorder's fallback (counts before and after) is not.
    if (plan.kinds.length > 0) (request as FastifyRequest & { faultInjected?: string[] }).faultInjected = [...new Set(plan.kinds)].sort()
    beforeHandler(request, reply, operation, plan).then((answered) => {
      if (!answered) done()
    }, done)
  })

  /**
   * Waits as a rule asks, ended when the client leaves: a call whose client gave up stayed held,
   * body and all, until its wait ended (an hour, or for good).
   */
  const waitOrLeft = async (reply: FastifyReply, ms: number): Promise<void> => {
    const left = new AbortController()
    const onClose = () => {
      if (!reply.raw.writableFinished) left.abort()
    }
    reply.raw.once('close', onClose)
    try {
      await wait(ms, left.signal)
    } finally {
      reply.raw.off('close', onClose)
    }
  }

  /** Applies the plan's latency and answer-replacing faults; true when the call was answered (or dropped). */
  const beforeHandler = async (request: FastifyRequest, reply: FastifyReply, operation: string, plan: FaultPlan): Promise<boolean> => {
    // A client that left ends the wait; the call goes on as a manager's would, its answer unread.
    if (plan.latencyMs > 0) await waitOrLeft(reply, plan.latencyMs)
    if (plan.reset) {
      // No answer at all: the client sees the connection drop.
      reply.hijack()
      request.raw.socket?.destroy()
      return true
    }
    if (plan.error !== null) {
      const { status, message } = plan.error
      sendEnvelope(request, reply, { servicename: operation, errors: [{ status, message, code: 'E_FAULT_INJECTED' }] }, status)
      return true
    }
    if (plan.stallMs > 0 || plan.slowBytesPerSecond !== null || plan.truncate) plans.set(request, plan)
    return false
  }

  app.addHook('onSend', function shapeFaultyAnswer(request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: Error | null, payload?: unknown) => void) {
    const plan = plans.get(request)
    if (plan === undefined) return done(null, payload)
    plans.delete(request)
    shapeAnswer(request, reply, payload, plan).then((shaped) => done(null, shaped), done)
  })

  /** Applies the plan's stall, slow and truncated body to the finished answer. */
  const shapeAnswer = async (request: FastifyRequest, reply: FastifyReply, payload: unknown, plan: FaultPlan): Promise<unknown> => {
    if (plan.stallMs > 0) await waitOrLeft(reply, plan.stallMs)
    if (!plan.truncate && plan.slowBytesPerSecond === null) return payload
    const bytes = payloadBytes(payload)
    const body: Buffer | Readable | undefined = bytes ?? (isStream(payload) ? payload : undefined)
    if (body === undefined) return payload
    // The full length, so the client can tell that the body ended early.
    if (bytes !== undefined) reply.header('content-length', bytes.length)
    const shaped = plan.slowBytesPerSecond === null ? body : slowBody(body, plan.slowBytesPerSecond, wait)
    if (!plan.truncate) return shaped
    const keep = bytes === undefined ? TRUNCATED_STREAM_BYTES : Math.floor(bytes.length / 2)
    return truncatedBody(shaped, keep, request.raw.socket)
  }
}

export const faultsPlugin = Object.assign(faultsPluginImpl, { [Symbol.for('skip-override')]: true })
