/**
 * Clients of large answers (lists of megabytes), run in a process of their own: `clients`
 * kept-alive connections, each asking for `path` again as soon as its last answer has been read
 * to its end, for `seconds` (and until `minAnswers` came, up to `maxSeconds`), or until
 * `maxAnswers` came. Every answer is timed. The bench's large-answer runs (bench/lib/load.ts)
 * and `npm run bench:list-load` read lists with them.
 *
 * Why a process of its own: a client of large answers reads megabytes a second, and how fast it
 * reads depends on what else its process does and holds. Read in the bench's own process, whose
 * heap also holds autocannon and its modules, bare fastify's 10k JSON lists came at 128 answers
 * a second; read from a process of their own, at 372 to 389 (bench/README.md, "Clients of large
 * answers in a process of their own"). A user's client is always a process of its own, too.
 *
 * runListClients forks this file: the child loads, says it is ready, starts when told (so the
 * server's CPU is measured around the load alone) and sends back one message, what it got.
 */
import { fork } from 'node:child_process'
import { Agent as HttpAgent, request as httpRequest } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import { fileURLToPath } from 'node:url'

export interface ListClientSpec {
  /** `http://127.0.0.1:<port>` or `https://…` (any certificate is taken) */
  origin: string
  path: string
  method?: string
  headers: Record<string, string>
  clients: number
  /** how long the clients ask at least */
  seconds: number
  /** go on past `seconds` until this many answers came… */
  minAnswers?: number
  /** …but for no longer than this (default: `seconds`) */
  maxSeconds?: number
  /** stop once this many answers came, even if time is left */
  maxAnswers?: number
  /** an answer not read to its end in this long counts as timed out (default 120) */
  timeoutSeconds?: number
}

export interface ListClientResult {
  /** answers read to their end, 2xx or not */
  answers: number
  bytes: number
  /** wall ms of each answer read to its end, from sending the request */
  times: number[]
  /** answers that were not 2xx */
  non2xx: number
  /** requests that failed at the socket */
  errors: number
  timeouts: number
  wallSeconds: number
}

async function run(spec: ListClientSpec): Promise<ListClientResult> {
  const url = new URL(spec.path, spec.origin)
  const https = url.protocol === 'https:'
  const agent = https ? new HttpsAgent({ keepAlive: true, maxSockets: spec.clients, rejectUnauthorized: false }) : new HttpAgent({ keepAlive: true, maxSockets: spec.clients })
  const send = https ? httpsRequest : httpRequest
  const one = () =>
    new Promise<{ ms: number; bytes: number; status: number }>((resolve, reject) => {
      const began = performance.now()
      const sent = send(url, { method: spec.method ?? 'GET', headers: spec.headers, agent, timeout: (spec.timeoutSeconds ?? 120) * 1000 }, (response) => {
        let bytes = 0
        response.on('data', (chunk: Buffer) => (bytes += chunk.length))
        response.on('end', () => resolve({ ms: performance.now() - began, bytes, status: response.statusCode ?? 0 }))
        response.on('error', reject)
      })
      sent.on('timeout', () => sent.destroy(new Error('timeout')))
      sent.on('error', reject)
      sent.end()
    })
  const limit = spec.maxAnswers ?? Number.POSITIVE_INFINITY
  const least = spec.minAnswers ?? 0
  const result: ListClientResult = { answers: 0, bytes: 0, times: [], non2xx: 0, errors: 0, timeouts: 0, wallSeconds: 0 }
  let issued = 0
  const started = performance.now()
  const enough = started + spec.seconds * 1000
  const deadline = started + Math.max(spec.seconds, spec.maxSeconds ?? 0) * 1000
  const more = () => {
    const now = performance.now()
    return issued < limit && now < deadline && (now < enough || issued < least)
  }
  const client = async () => {
    while (more()) {
      issued++
      try {
        const answer = await one()
        result.answers++
        result.times.push(answer.ms)
        result.bytes += answer.bytes
        if (answer.status < 200 || answer.status > 299) result.non2xx++
      } catch (error) {
        if ((error as Error).message === 'timeout') result.timeouts++
        else result.errors++
      }
    }
  }
  await Promise.all(Array.from({ length: spec.clients }, client))
  result.wallSeconds = (performance.now() - started) / 1000
  agent.destroy()
  return result
}

type FromChild = { ready: true } | { result: ListClientResult }

/**
 * Runs the clients in a process of their own. `beforeStart` runs once the process has loaded
 * and before the clients start (the bench starts measuring the server's CPU there).
 */
export function runListClients(spec: ListClientSpec, beforeStart: () => Promise<unknown> = async () => {}): Promise<ListClientResult> {
  const file = fileURLToPath(import.meta.url)
  return new Promise<ListClientResult>((resolve, reject) => {
    const child = fork(file, [JSON.stringify(spec)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    let settled = false
    child.on('message', (message: FromChild) => {
      if ('ready' in message) {
        beforeStart().then(
          () => child.send('start'),
          (error: unknown) => {
            settled = true
            child.kill()
            reject(error as Error)
          }
        )
        return
      }
      settled = true
      resolve(message.result)
    })
    child.once('error', reject)
    // 'close' rather than 'exit': it comes once the channel is closed, after every message it carried.
    child.once('close', (code) => {
      if (!settled) reject(new Error(`the list clients exited with code ${code} before they reported`))
    })
  })
}

// Forked by runListClients: the spec comes as the first argument; the clients start on 'start'.
if (process.send !== undefined && process.argv[1] === fileURLToPath(import.meta.url)) {
  const spec = JSON.parse(process.argv[2]) as ListClientSpec
  process.once('message', () => {
    void run(spec).then((result) => process.send?.({ result } satisfies FromChild, () => process.exit(0)))
  })
  process.send({ ready: true } satisfies FromChild)
}
