/** agentinfo: agent records by name, by state, or all of them, with or without modules. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { AgentStateName } from '../../protocol/states.js'
import { resolveNames } from '../agents.js'
import { apiError } from '../../protocol/errors.js'
import { agentinfoItemLinks, selfLink, type LinkBase } from '../links.js'
import { agentRecord } from '../records.js'
import { EAGER_ITEMS, itemsAnswerInTurns, sendChunks, sendItemTexts, sendAnswer, sendKept, textEnvelope } from '../reply.js'
import { writeAgentItem, writeWantedItem, type Keeping } from '../item-writer.js'
import { writeAgentItemBytes } from '../item-bytes.js'
import { byNameEnvelope } from '../by-name-envelope.js'
import { ListBytes, type WriteItem } from '../list-bytes.js'
import { SHARED_CHUNK_BYTES } from '../shared-list.js'
import type { SlabPool } from '../slab-pool.js'
import type { Link } from '../schemas.js'
import { BytesAnswer } from '../answer-cache.js'
import { ChunkWriter } from '../chunk-writer.js'
import { statedBytes } from '../../journal/answer.js'
import type { Format } from '../../protocol/negotiation.js'
import type { RouteKit } from '../route-kit.js'
import { fieldsOf, nearKey, withRules, type RequestRule } from '../validation.js'
import { AgentinfoItem, AgentinfoQuery, ERROR_RESPONSES, Envelope } from '../schemas.js'
import type { Fleet, IndexCursor } from '../../fleet/fleet-api.js'

/**
 * A list's agents as it is written, all of one run: a list made over several turns of the event
 * loop reads the fleet as it goes, and a reset meanwhile empties it. The list then fails with
 * E_FLEET_RESET (a streamed one is cut off, which its client sees as an error) rather than ending
 * early as a whole answer with part of the agents. The run is the one the request was handled in,
 * read when the list is asked for: a long list begins a turn or more later (SharedList), and a
 * reset in between left it to read the run being built and end at once, whole and empty.
 */
class OneRun implements IndexCursor {
  private readonly run: number

  constructor(
    private readonly fleet: Pick<Fleet, 'run'>,
    private readonly indices: IndexCursor
  ) {
    this.run = fleet.run
  }

  next(): number {
    const index = this.indices.next()
    if (this.fleet.run !== this.run) throw apiError('E_FLEET_RESET')
    return index
  }
}

/** At least one of agentname, agentstate, agentwithmodules. */
const someParameter: RequestRule = (query) => {
  const q = fieldsOf(query)
  if (q === undefined || q.agentname !== undefined || q.agentstate !== undefined || q.agentwithmodules !== undefined) return undefined
  for (const meant of ['agentname', 'agentstate', 'agentwithmodules']) {
    const { near } = nearKey(q, meant)
    if (near !== undefined) return apiError('E_AGENTINFO_NO_PARAMETER', { near: { sent: near, meant } })
  }
  return apiError('E_AGENTINFO_NO_PARAMETER', {})
}

/** agentname and agentstate select in two ways: one of them. */
const nameOrState: RequestRule = (query) => {
  const q = fieldsOf(query)
  return q?.agentname !== undefined && q.agentstate !== undefined ? apiError('E_EXCLUSIVE_PARAMETERS', { first: 'agentname', second: 'agentstate' }) : undefined
}

/** The route schema; the fast path (src/http/fast-path.ts) journals its answers under it. */
export const AGENTINFO_SCHEMA = {
  summary: 'Agent records by name, by state, or all agents',
  // The two rules below, which a schema of the query alone cannot say.
  description:
    'Needs at least one of agentname, agentstate and agentwithmodules (agentwithmodules alone lists every agent); ' +
    'agentname and agentstate cannot be combined. Either mistake is a 400 in the error envelope.',
  querystring: withRules(AgentinfoQuery, someParameter, nameOrState),
  response: { 200: Envelope(AgentinfoItem), ...ERROR_RESPONSES }
}

/** One agent as an agentinfo item, the object the response schema describes (item-writer.ts writes the same as text). */
export function agentItem(fleet: Fleet, base: LinkBase, index: number, withModules: boolean): AgentinfoItem {
  const view = fleet.view(index, withModules)
  return { content: agentRecord(view), links: agentinfoItemLinks(base, view.name) }
}

/** One agent as an agentinfo item, written as text in the request's format. */
export function agentItemText(kit: Pick<RouteKit, 'fragments'>, fleet: Fleet, format: Format, base: LinkBase, index: number, withModules: boolean, keeping: Keeping = 'item'): string {
  return writeAgentItem(format, fleet, index, withModules, base, kit.fragments, keeping)
}

/** The request an agentinfo-by-name answer is for, as the answer cache keys it. */
export interface ByNameRequest {
  url: string
  format: Format
  encrypted: boolean
  host: string
}

/**
 * Where answers by name are written: each is sent as a chunk of the writer's slab (256 KiB, about
 * two hundred answers), never written over (chunk-writer.ts), and left to the GC with the last
 * chunk cut from it. A buffer of its own per answer, cut from Node's pool of small buffers, was a
 * new 8 KiB pool every six answers, the largest part of writing one after its item.
 */
const byNameWriter = new ChunkWriter()

/**
 * The answer about these agents, built, and kept if its URL was asked for before and nothing
 * moved while it was built (AnswerCache.keepAskedAgain). Both the route and the fast path
 * (fast-path.ts) answer agentinfo by name with it.
 *
 * Written as bytes, as a list that streams is (item-bytes.ts): an item is written from the
 * agent's figures and its identity's kept text, or copied from the bytes kept for it, rather than
 * joined as text from a view and encoded when sent (bench/README.md, "Answers by name written as
 * bytes"). `test/http/by-name-bytes.test.ts` holds them to the text writer's answers.
 */
export function keepByName(kit: Pick<RouteKit, 'answers' | 'fragments' | 'manager'>, request: ByNameRequest, base: LinkBase, indices: number[], withModules: boolean): BytesAnswer {
  const fleet = kit.manager.fleet
  // Read before the agents are: the answer is kept only if nothing moved while it was built.
  const stamp = kit.answers.stamp(indices)
  const envelope = byNameEnvelope(request.format)
  const out = byNameWriter
  envelope.head(out)
  for (let k = 0; k < indices.length; k++) {
    if (k > 0) envelope.separator(out)
    writeAgentItemBytes(out, request.format, fleet, indices[k], withModules, base, kit.fragments, 'item')
  }
  envelope.tail(out, base, request.url)
  const answer = new BytesAnswer(out.take(), request.url)
  // A kept answer takes a copy: kept, a chunk would hold its whole slab.
  if (kit.answers.keepAskedAgain(request.url, request.format, request.encrypted, request.host, stamp, answer)) answer.ownBytes()
  return answer
}

/** An item with modules is about four times one without: a list is kept up to a quarter as many agents then. */
const MODULES_WEIGHT = 4

/** What a list by state (or of every agent) is made of, whichever way it is written. */
interface ListRequest {
  kit: RouteKit
  fleet: Fleet
  format: Format
  base: LinkBase
  /** the agents chosen, by state or all of them, one at a time */
  indices: IndexCursor
  withModules: boolean
  /** how many agents the list is expected to hold (the counts by state) */
  expected: number
  /** the states asked for; an agent that left them after it was chosen is left out */
  states: ReadonlySet<string> | undefined
}

/**
 * A list's items as text, for the lists sent whole or kept. Their identity parts are kept only
 * if the whole list fits the bound (ItemFragments), and the items themselves only while lists
 * are worth keeping: when the fleet moves faster than a list is made, every item is stale
 * before the next list asks for it.
 */
function* itemTexts(list: ListRequest): Generator<string> {
  const { kit, expected } = list
  const keeping: Keeping = expected > kit.fragments.capacity ? 'nothing' : kit.answers.listsWorthKeeping ? 'item' : 'identity'
  for (let index = list.indices.next(); index !== -1; index = list.indices.next()) {
    // Undefined: the agent left the states asked for after the list chose it (writeWantedItem).
    const text = writeWantedItem(list.format, list.fleet, index, list.withModules, list.base, kit.fragments, keeping, list.states)
    if (text !== undefined) yield text
  }
}

/**
 * A list that streams, written as bytes (list-bytes.ts): the list itself is not kept, as it
 * streams because it is longer than what is kept or the fleet moves faster than lists are
 * made. Up to as many agents as fragments are kept, each item's identity part and its bytes are
 * (writeAgentItemBytes, 'item'): the next list copies the items of the agents that have not moved.
 */
function listBytes(list: ListRequest, links: Link[], shared?: { slabs: SlabPool; chunkBytes: number }): ListBytes {
  const { kit, fleet, format, base, withModules } = list
  const keeping = list.expected > kit.fragments.capacity ? 'nothing' : 'item'
  const write: WriteItem = (out, index) => writeAgentItemBytes(out, format, fleet, index, withModules, base, kit.fragments, keeping)
  return new ListBytes(textEnvelope(format, 'agentinfo', links), list.indices, write, { ...shared, states: list.states })
}

/** The items, then `made()` once the last was written (not when the client went away before). */
function* thenNote<T>(items: Iterable<T>, made: () => void): Generator<T> {
  yield* items
  made()
}

export function agentinfoRoutes(app: FastifyInstance, kit: RouteKit): void {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>()
  const { answers } = kit
  const fleet = kit.manager.fleet

  /** Agents by name: the kept answer while it is still true, else one built, sent and kept. */
  const answerByName = (request: FastifyRequest, reply: FastifyReply, names: string[], withModules: boolean) => {
    const encrypted = request.protocol === 'https'
    const kept = answers.get(request.url, request.format, encrypted, request.host)
    if (kept !== undefined) return sendKept(request, reply, kept)
    const indices = resolveNames(fleet, names)
    const base = kit.links.base(request)
    const answer = keepByName(kit, { url: request.url, format: request.format, encrypted, host: request.host }, base, indices, withModules)
    return sendAnswer(request, reply, answer.text)
  }

  for (const { url, options } of kit.routes('agentinfo')) {
    typed.get(url, { ...options, schema: AGENTINFO_SCHEMA }, async (request, reply) => {
      // Which parameters may be combined is checked with the schema (someParameter, nameOrState).
      const { agentname, agentstate, agentwithmodules } = request.query
      const withModules = agentwithmodules === true
      if (agentname !== undefined) return answerByName(request, reply, agentname, withModules)
      const base = kit.links.base(request)
      const links = [selfLink(base, request)]
      const states = agentstate === undefined ? undefined : new Set<AgentStateName>(agentstate)
      const indices = new OneRun(fleet, fleet.cursor(states))
      const { agents, byState } = fleet.counts()
      const expected = states === undefined ? agents : [...states].reduce((sum, state) => sum + byState[state], 0)
      const list: ListRequest = { kit, fleet, format: request.format, base, indices, withModules, expected, states }
      const items = itemTexts(list)
      // A list of up to MAX_KEPT_LIST_AGENTS is kept, like an answer by name, while no agent
      // has changed (a dashboard polling a list at speed 1 gets it made once a virtual second),
      // and made once for requests that come together. A long one is made as bytes and streams
      // (list-bytes.ts), and is kept as those bytes if the fleet held still while it was made; a
      // short one is made whole, as text, and kept while lists are worth keeping. A list longer
      // than is kept streams to its request alone.
      const encrypted = request.protocol === 'https'
      const kept = answers.get(request.url, request.format, encrypted, request.host)
      if (kept !== undefined) return sendKept(request, reply, kept)
      const weight = withModules ? expected * MODULES_WEIGHT : expected
      if (expected > EAGER_ITEMS && answers.keepsList(weight)) {
        // Its stamp is read once the rounds in flight have ended, right before it is made (sharedList).
        // Held whole until every request for it has it sent, so its memory can be used again (slab-pool.ts).
        const bytes = () => listBytes(list, links, { slabs: kit.slabs, chunkBytes: SHARED_CHUNK_BYTES })
        const shared = answers.sharedList(request.url, request.format, encrypted, request.host, reply.raw, bytes, weight, (kept) => statedBytes(kept.body, shared.states()))
        request.streamedStates = shared.states
        return sendAnswer(request, reply, shared.body)
      }
      // Read before the agents are: kept only if nothing moved while it was made.
      const stamp = answers.stampList(weight)
      if (stamp === undefined) {
        if (expected <= EAGER_ITEMS) return sendItemTexts(request, reply, 'agentinfo', items, links, expected)
        const streamed = listBytes(list, links)
        request.streamedStates = () => streamed.states
        return sendChunks(request, reply, streamed)
      }
      if (!answers.listsWorthKeeping) return sendItemTexts(request, reply, 'agentinfo', thenNote(items, () => answers.listMade(stamp)), links, expected)
      const answer = await answers.shared(request.url, request.format, encrypted, request.host, async () => {
        const text = await itemsAnswerInTurns(request.format, 'agentinfo', items, links)
        if (answers.listMade(stamp)) answers.keep(request.url, request.format, encrypted, request.host, stamp, text)
        return text
      })
      return sendAnswer(request, reply, answer)
    })
  }
}
