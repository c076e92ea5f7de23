/**
 * Starts a server under load in a child process (target-child.ts) and talks to it over IPC.
 * A child keeps the load generator's event loop apart from the server's, as it would be for a
 * real client.
 */
import { fork, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { ChildMessage, Command, CommandResults, Ready, TargetSpec } from './protocol.js'

const CHILD = fileURLToPath(new URL('./target-child.ts', import.meta.url))
/** Building a million-agent fleet with workers loading TypeScript takes a while. */
const READY_TIMEOUT_MS = 120_000
const COMMAND_TIMEOUT_MS = 180_000

export interface Target {
  readonly ready: Ready
  readonly pid: number
  /** `http://127.0.0.1:<port>` */
  readonly origin: string
  /** `https://127.0.0.1:<port>` when the spec has TLS files */
  readonly tlsOrigin: string | undefined
  command<C extends Command>(command: C): Promise<CommandResults[C['op']]>
  close(): Promise<void>
}

export async function startTarget(spec: TargetSpec): Promise<Target> {
  // FLEETSIM_BENCH_CPU_PROF=<dir> profiles fleetsim targets (node --cpu-prof) to find hot paths.
  const profileDir = spec.kind === 'fleetsim' || process.env.FLEETSIM_BENCH_CPU_PROF_ALL ? process.env.FLEETSIM_BENCH_CPU_PROF : undefined
  // One GC thread unless asked otherwise. With V8's parallel GC, each server process on this
  // 2-core machine settled for its lifetime at either its normal cost per answer or about twice
  // it, as its GC helpers fought the load generator and the server's own thread: bare fastify
  // took 13 or 25 µs per answer from one process to the next. With a single GC thread it took
  // 13 µs in every process (bench/README.md, "How it measures"). The same for every target.
  const gcFlags = spec.gc === 'parallel' ? [] : ['--single-threaded-gc']
  const child: ChildProcess = fork(CHILD, [JSON.stringify(spec)], {
    execArgv: ['--import', 'tsx', ...gcFlags, ...(profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [])],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc']
  })
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>()
  let nextId = 1
  let exited = false
  const ready = await new Promise<Ready>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${spec.kind} target not ready within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS)
    child.on('message', (message: ChildMessage) => {
      if (message.type === 'ready') {
        clearTimeout(timer)
        resolve(message)
      } else if (message.type === 'failed') {
        clearTimeout(timer)
        reject(new Error(`${spec.kind} target failed to start: ${message.error}`))
      } else {
        const waiter = pending.get(message.id)
        pending.delete(message.id)
        if ('error' in message) waiter?.reject(new Error(message.error))
        else waiter?.resolve(message.value)
      }
    })
    child.once('exit', (code) => {
      exited = true
      clearTimeout(timer)
      reject(new Error(`${spec.kind} target exited with code ${code}`))
      for (const waiter of pending.values()) waiter.reject(new Error(`${spec.kind} target exited with code ${code}`))
      pending.clear()
    })
  }).catch((error: unknown) => {
    child.kill()
    throw error
  })
  return {
    ready,
    pid: child.pid ?? -1,
    origin: `http://127.0.0.1:${ready.port}`,
    tlsOrigin: ready.tlsPort === null ? undefined : `https://127.0.0.1:${ready.tlsPort}`,
    command<C extends Command>(command: C) {
      const id = nextId++
      return new Promise<CommandResults[C['op']]>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${command.op} got no answer within ${COMMAND_TIMEOUT_MS} ms`)), COMMAND_TIMEOUT_MS)
        pending.set(id, {
          resolve: (value) => (clearTimeout(timer), resolve(value as CommandResults[C['op']])),
          reject: (error) => (clearTimeout(timer), reject(error))
        })
        child.send({ id, command })
      })
    },
    async close() {
      if (exited) return
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()))
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000)
      child.disconnect()
      await gone
      clearTimeout(killer)
    }
  }
}
