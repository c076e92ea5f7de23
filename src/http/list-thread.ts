/**
 * The list thread: a worker thread that makes the long lists made once for several requests
 * (SharedList: agentinfo by state or of every agent, more than EAGER_ITEMS agents and up to
 * MAX_KEPT_LIST_AGENTS), so that the main thread only sends them.
 *
 * Why: with the clock at speed 600 every agent is polled every 100 ms of wall time and a list of
 * 10,000 agents is made again for about two requests in five; fleetsim spent about three times
 * bare fastify's CPU on each answer, and its main thread was busy 83 to 93 % of the time while
 * half a core stood idle. Made here, the lists came about a tenth more often (medians 1.12 to
 * 1.20 times in paired A/Bs), with the main thread busy half the time (`npm run bench:list-load`,
 * bench/README.md "Lists made on a thread of their own").
 *
 * How: the thread reads the agents' shared memory through a replica of the fleet
 * (fleet-replica.ts: the run's program, the API's overrides and the fleet's second, handed over
 * with each list, the parts it has seen left out) and writes each item as the main thread would
 * (list-worker.ts), fetching the overrides again when their revision (in shared memory) moved past
 * its copy's. It posts the list back in chunks of about RUN_BYTES, each in the slab it was written
 * in, transferred, not copied, and given back once the list is sent (recycle).
 *
 * A chunk that comes after the fleet was reset (a new run) fails the list with E_FLEET_RESET, as
 * a list made on the main thread fails (routes/agentinfo.ts, OneRun): the agents it read may be
 * the new run's. If the thread dies, the lists it was making fail, and the next list starts a
 * new one.
 */
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads'
import type { ReplicaSeen, ReplicaState } from '../fleet/fleet-replica.js'
import type { OverrideEntries } from '../fleet/agent-overrides.js'
import type { AgentStateName } from '../protocol/states.js'
import type { Format } from '../protocol/negotiation.js'
import { apiError } from '../protocol/errors.js'
import { threadEntry } from '../lib/worker-entry.js'
import type { Keeping } from './item-writer.js'
import type { FromListWorker, ListWorkerData, ToListWorker } from './list-worker.js'
import type { TextEnvelope, TakenChunk } from './reply.js'
import type { StatedChunks } from './shared-list.js'

/** What the thread reads of the fleet on this one. */
export interface ListThreadFleet {
  replicaState(seen: ReplicaSeen | undefined): ReplicaState
  replicaOverrides(): { entries: OverrideEntries; revision: number }
  readonly run: number
}

/** A list to make on the thread: as routes/agentinfo.ts asks ListBytes for one. */
export interface ThreadListAsked {
  format: Format
  withModules: boolean
  /** what the links are made of (Links.baseOf) */
  protocol: string
  host: string
  envelope: TextEnvelope
  states: ReadonlySet<string> | undefined
  keeping: Keeping
}

export class ListThread {
  private worker: Worker | undefined
  /** where the worker is sent the overrides when its copy went stale mid-list (it waits for them) */
  private overridesPort: MessagePort | undefined
  /** what the worker's replica has seen of the fleet */
  private seen: ReplicaSeen | undefined
  private nextId = 1
  private readonly lists = new Map<number, ThreadList>()
  private readonly stopCell = new Int32Array(new SharedArrayBuffer(4))
  private closed = false

  constructor(
    private readonly fleet: ListThreadFleet,
    private readonly appPath: string
  ) {}

  /** A list to be made on the thread, from its first take() (SharedList's source). */
  list(asked: ThreadListAsked): StatedChunks {
    return new ThreadList(this, this.fleet, asked)
  }

  /** Asks the thread for a list now: its id. */
  make(list: ThreadList, asked: ThreadListAsked): number {
    const worker = this.running()
    const id = this.nextId++
    const state = this.fleet.replicaState(this.seen)
    this.seen = { run: state.run, identityRevision: state.identityRevision }
    this.lists.set(id, list)
    const { format, withModules, protocol, host, envelope, states, keeping } = asked
    const message: ToListWorker = { kind: 'make', id, state, format, withModules, protocol, host, envelope, keeping, ...(states === undefined ? {} : { states: [...states] as AgentStateName[] }) }
    worker.postMessage(message)
    return id
  }

  /** List `id` is not wanted any more: the thread stops making it, at once if it is waiting for this thread's writes. */
  stop(id: number): void {
    if (!this.lists.delete(id)) return
    Atomics.store(this.stopCell, 0, id)
    Atomics.notify(this.stopCell, 0)
    this.post({ kind: 'stop', id })
  }

  /** Chunks' memory the lists sent no longer need, for the thread to write again. */
  giveBack(memory: ArrayBuffer[]): void {
    if (memory.length > 0) this.post({ kind: 'recycle', memory }, memory)
  }

  /** Ends the thread; the lists it was making fail. */
  async close(): Promise<void> {
    this.closed = true
    const worker = this.worker
    this.ended(new Error('the server is closing'))
    await worker?.terminate()
  }

  private post(message: ToListWorker, transfer: ArrayBuffer[] = []): void {
    this.worker?.postMessage(message, transfer)
  }

  private running(): Worker {
    if (this.closed) throw new Error('the list thread is closed')
    if (this.worker !== undefined) return this.worker
    const { filename, execArgv, env, argv } = threadEntry(import.meta.url, 'list-worker')
    const overrides = new MessageChannel()
    const workerData: ListWorkerData = { appPath: this.appPath, stopCell: this.stopCell, overridesPort: overrides.port2 }
    const worker = new Worker(filename, { execArgv, argv, workerData, transferList: [overrides.port2], ...(env === undefined ? {} : { env }) })
    this.overridesPort = overrides.port1
    // An idle thread does not keep the process alive; a list being made has its requests open.
    worker.unref()
    worker.on('message', (message: FromListWorker) => this.received(message))
    worker.on('error', (error) => this.ended(error, worker))
    worker.on('exit', (code) => this.ended(new Error(`the list thread exited (code ${code})`), worker))
    this.worker = worker
    return worker
  }

  private received(message: FromListWorker): void {
    if ('overridesAsked' in message) {
      // Its own port: the worker reads it while it waits, without returning to its event loop.
      this.overridesPort?.postMessage(this.fleet.replicaOverrides())
      return
    }
    const list = this.lists.get(message.id)
    if ('error' in message) {
      this.lists.delete(message.id)
      list?.failed(new Error(`the list thread could not make the list: ${message.error}`))
      return
    }
    if (list === undefined) return this.giveBack([message.memory])
    if (message.last) this.lists.delete(message.id)
    list.arrived(message.memory, message.length, message.states, message.last)
  }

  /** The worker is gone (or `worker`, if it is still the one): its lists fail, the next list starts another. */
  private ended(error: Error, worker = this.worker): void {
    if (worker !== this.worker) return
    this.worker = undefined
    this.overridesPort?.close()
    this.overridesPort = undefined
    this.seen = undefined
    const lists = [...this.lists.values()]
    this.lists.clear()
    for (const list of lists) list.failed(error)
  }
}

/** A list made on the thread, as SharedList takes it: its chunks as they come. */
class ThreadList implements StatedChunks {
  private id = 0
  /** the run the list was asked for in: a list asked for just before a reset is not the new run's */
  private readonly run: number
  private readonly ready: Array<TakenChunk<Buffer>> = []
  private waiting: { resolve: (chunk: TakenChunk<Buffer>) => void; reject: (error: Error) => void } | undefined
  private failure: Error | undefined
  private shown: readonly string[] = []
  /** the chunks' memory, given back to the thread once the list is sent (recycle) */
  private readonly memory: ArrayBuffer[] = []
  private done = false

  constructor(
    private readonly thread: ListThread,
    private readonly fleet: ListThreadFleet,
    private readonly asked: ThreadListAsked
  ) {
    this.run = fleet.run
  }

  get states(): readonly string[] {
    return this.shown
  }

  take(): Promise<TakenChunk<Buffer>> {
    if (this.id === 0) {
      if (this.fleet.run !== this.run) return Promise.reject(apiError('E_FLEET_RESET'))
      // Asked for at the first take, once the fleet's rounds in flight have ended (SharedList).
      this.id = this.thread.make(this, this.asked)
    }
    if (this.failure !== undefined) return Promise.reject(this.failure)
    const next = this.ready.shift()
    if (next !== undefined) return Promise.resolve(next)
    return new Promise((resolve, reject) => (this.waiting = { resolve, reject }))
  }

  arrived(memory: ArrayBuffer, length: number, states: readonly string[], last: boolean): void {
    if (this.fleet.run !== this.run) {
      this.thread.giveBack([memory])
      this.thread.stop(this.id)
      return this.failed(apiError('E_FLEET_RESET'))
    }
    this.memory.push(memory)
    this.shown = states
    this.done = last
    const chunk = { chunk: Buffer.from(memory, 0, length), last }
    const waiting = this.waiting
    this.waiting = undefined
    if (waiting !== undefined) waiting.resolve(chunk)
    else this.ready.push(chunk)
  }

  failed(error: Error): void {
    this.failure ??= error
    const waiting = this.waiting
    this.waiting = undefined
    waiting?.reject(this.failure)
  }

  /** Its requests went away: the thread stops making it. The chunks sent may still be in sockets' queues: their memory is left to the GC. */
  stop(): void {
    if (this.id !== 0 && !this.done) this.thread.stop(this.id)
    this.memory.length = 0
  }

  /** Every chunk was written to every response it was sent to: their memory goes back to the thread. */
  recycle(): void {
    this.thread.giveBack(this.memory.splice(0))
  }
}
