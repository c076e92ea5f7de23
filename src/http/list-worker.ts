/**
 * The list thread's entry (list-thread.ts has the why): makes the lists it is asked for as bytes,
 * item by item as the main thread makes them (ListBytes, writeAgentItemBytes), from a replica of
 * the fleet (fleet-replica.ts), and posts them back a chunk of about CHUNK_BYTES at a time, each
 * in the slab it was written in, which is transferred, not copied (ChunkWriter.takeWithSlab). The
 * main thread gives the slabs back once the list is sent (`recycle`).
 *
 * It keeps what the main thread keeps for lists (ItemFragments: identities' texts and items'
 * bytes), for the lists it makes: the next list copies the items of the agents that have not
 * moved since the last.
 */
import { parentPort, receiveMessageOnPort, workerData, type MessagePort } from 'node:worker_threads'
import { FleetReplica, type ReplicaState } from '../fleet/fleet-replica.js'
import type { OverrideEntries } from '../fleet/agent-overrides.js'
import type { AgentStateName } from '../protocol/states.js'
import type { Format } from '../protocol/negotiation.js'
import { writeAgentItemBytes } from './item-bytes.js'
import type { Keeping } from './item-writer.js'
import { ItemFragments } from './kept-items.js'
import { Links } from './links.js'
import { ListBytes, type WriteItem } from './list-bytes.js'
import type { TextEnvelope } from './reply.js'
import { SlabPool } from './slab-pool.js'
import { RUN_BYTES } from './shared-list.js'

export interface ListWorkerData {
  appPath: string
  /** the id of a list the main thread no longer wants: the worker stops making it, even while it waits for the main thread's writes */
  stopCell: Int32Array
  /** the overrides as they are now, sent when the worker asks (`overridesAsked`): read without returning to the event loop */
  overridesPort: MessagePort
}

/** A list to make. */
export interface MakeList {
  kind: 'make'
  id: number
  state: ReplicaState
  format: Format
  withModules: boolean
  /** what the links are made of (Links.baseOf) */
  protocol: string
  host: string
  envelope: TextEnvelope
  /** the states a list by state shows (ListBytes) */
  states?: AgentStateName[]
  keeping: Keeping
}

export type ToListWorker =
  | MakeList
  /** list `id` is not wanted any more (its requests went away, or the fleet was reset) */
  | { kind: 'stop'; id: number }
  /** the memory of chunks sent, to be written again */
  | { kind: 'recycle'; memory: ArrayBuffer[] }

/** A chunk of list `id`, in `memory` (transferred) up to `length`, and the states the list showed so far; or why the list could not be made. */
export type FromListWorker =
  | { id: number; memory: ArrayBuffer; length: number; states: readonly string[]; last: boolean }
  | { id: number; error: string }
  /** the worker's copy of the overrides is stale: the main thread sends them on `overridesPort` */
  | { overridesAsked: true }

/**
 * Bytes of a chunk at least (but the last), one item more at most: what the main thread pushes to
 * a request at once (RUN_BYTES). A chunk is a message, which costs the main thread about what
 * writing a few items does. It goes with the slab it starts, about twice its length, so a list
 * sent holds about twice its length of external memory (most of it never touched, and so not
 * resident); chunks of nearly a slab measured slower (bench/README.md, "Lists made on a thread of
 * their own").
 */
const CHUNK_BYTES = RUN_BYTES
/** How long the worker waits at a time for the main thread to end its writes (FleetCore.changeCell). */
const WAIT_MS = 1

/** Thrown out of a list being made when the main thread no longer wants it. */
class Stopped extends Error {}

const data = workerData as ListWorkerData
const port = parentPort
if (port === null) throw new Error('list-worker.ts runs as a worker thread (list-thread.ts starts it)')
const replica = new FleetReplica()
const fragments = new ItemFragments()
const links = new Links(data.appPath)
const slabs = new SlabPool()
/** lists asked for, made one at a time in order */
const queue: MakeList[] = []
/** the list being made */
let making: MakeList | undefined
/** the lists not wanted any more, of those asked for and not made yet */
const unwanted = new Set<number>()

port.on('message', (message: ToListWorker) => {
  switch (message.kind) {
    case 'recycle':
      slabs.giveBack(message.memory.map((memory) => Buffer.from(memory)))
      return
    case 'stop':
      if (making?.id === message.id || queue.some((list) => list.id === message.id)) unwanted.add(message.id)
      return
    case 'make':
      queue.push(message)
      if (making === undefined) makeNext()
  }
})

function makeNext(): void {
  const next = (making = queue.shift())
  if (next === undefined) return
  if (unwanted.delete(next.id)) {
    // Its state still counts: the main thread hands the run's data and the overrides once, and
    // the lists after this one come without them.
    try {
      replica.update(next.state)
    } catch {
      // The next list says what is wrong with the replica: it fails with the same error.
    }
    return void setImmediate(makeNext)
  }
  let list: ListBytes
  try {
    list = listOf(next)
  } catch (error) {
    port?.postMessage({ id: next.id, error: (error as Error).message } satisfies FromListWorker)
    return void setImmediate(makeNext)
  }
  // A chunk per turn: the messages that give memory back come in between.
  const makeChunk = () => {
    try {
      if (unwanted.delete(next.id)) throw new Stopped()
      // The chunk starts its slab, which is handed over with it (ChunkWriter.takeWithSlab): no copy.
      const { chunk, last } = list.take()
      const memory = chunk.byteOffset === 0 && chunk.length > 0 ? (chunk.buffer as ArrayBuffer) : new Uint8Array(chunk).buffer
      port?.postMessage({ id: next.id, memory, length: chunk.length, states: list.states, last } satisfies FromListWorker, [memory])
      if (!last) return void setImmediate(makeChunk)
    } catch (error) {
      if (!(error instanceof Stopped)) port?.postMessage({ id: next.id, error: (error as Error).message } satisfies FromListWorker)
    }
    list.recycle()
    setImmediate(makeNext)
  }
  makeChunk()
}

function listOf(asked: MakeList): ListBytes {
  replica.update(asked.state)
  const base = links.baseOf(asked.protocol, asked.host)
  const states = asked.states === undefined ? undefined : new Set(asked.states)
  const { id, format, withModules, keeping } = asked
  const write: WriteItem = (out, index) => {
    for (;;) {
      const changes = replica.mainChanges()
      if ((changes & 1) === 1) {
        waitForMain(id, changes)
        continue
      }
      if (replica.overridesStale()) {
        // Renamed or reconfigured since the copy was taken: with the agents' memory live, the
        // item would show the old name with the new state.
        fetchOverrides(id)
        continue
      }
      const from = out.length
      const state = writeAgentItemBytes(out, format, replica, index, withModules, base, fragments, keeping)
      if (replica.mainChanges() === changes) return state
      // The main thread wrote agents meanwhile: the item may show half its change.
      out.rewind(from)
    }
  }
  return new ListBytes(asked.envelope, replica.cursor(states), write, { slabs, chunkBytes: CHUNK_BYTES, chunksWithSlabs: true, ...(states === undefined ? {} : { states }) })
}

/** Asks the main thread for its overrides and waits for them (or until list `id` is not wanted). */
function fetchOverrides(id: number): void {
  port?.postMessage({ overridesAsked: true } satisfies FromListWorker)
  for (;;) {
    const received = receiveMessageOnPort(data.overridesPort)
    if (received !== undefined) {
      const { entries, revision } = received.message as { entries: OverrideEntries; revision: number }
      replica.takeOverrides(entries, revision)
      return
    }
    if (Atomics.load(data.stopCell, 0) === id) throw new Stopped()
    Atomics.wait(data.stopCell, 0, Atomics.load(data.stopCell, 0), WAIT_MS)
  }
}

/** Waits while the main thread writes agents (its change count is `changes`, odd), or until list `id` is not wanted. */
function waitForMain(id: number, changes: number): void {
  while (replica.mainChanges() === changes) {
    if (Atomics.load(data.stopCell, 0) === id) throw new Stopped()
    Atomics.wait(data.stopCell, 0, Atomics.load(data.stopCell, 0), WAIT_MS)
  }
}
