/**
 * The clients of `npm run bench:list-load`, run in a process of their own (bench/list-load.ts
 * forks this file): `clients` kept-alive connections, each asking for `path` again as soon as
 * its last answer has been read to its end, for `seconds`. Sends the driver one message, what
 * they got: answers, bytes, and the answers that failed or were not 2xx.
 *
 * Why a process of its own: a client of large answers reads megabytes a second, and in the
 * process that also drives the bench it shares that process's event loop and CPU with the
 * driver's work; a user's client is always a process of its own.
 */
import { Agent, request } from 'node:http'

export interface ListClientSpec {
  /** `http://127.0.0.1:<port>` */
  origin: string
  path: string
  headers: Record<string, string>
  clients: number
  seconds: number
}

export interface ListClientResult {
  answers: number
  bytes: number
  /** answers that were not 2xx, or requests that failed at the socket */
  failed: number
  wallSeconds: number
}

async function run(spec: ListClientSpec): Promise<ListClientResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: spec.clients })
  const url = new URL(spec.path, spec.origin)
  const one = () =>
    new Promise<number>((resolve, reject) => {
      const sent = request(url, { headers: spec.headers, agent }, (response) => {
        let bytes = 0
        response.on('data', (chunk: Buffer) => (bytes += chunk.length))
        response.on('end', () => resolve((response.statusCode ?? 0) >= 200 && (response.statusCode ?? 0) < 300 ? bytes : -1))
        response.on('error', reject)
      })
      sent.on('error', reject)
      sent.end()
    })
  let answers = 0
  let bytes = 0
  let failed = 0
  const started = performance.now()
  const deadline = started + spec.seconds * 1000
  const client = async () => {
    while (performance.now() < deadline) {
      const got = await one().catch(() => -1)
      if (got < 0) failed++
      else {
        answers++
        bytes += got
      }
    }
  }
  await Promise.all(Array.from({ length: spec.clients }, client))
  agent.destroy()
  return { answers, bytes, failed, wallSeconds: (performance.now() - started) / 1000 }
}

// Forked by list-load.ts: the spec comes as the first argument, the result goes back as a message.
if (process.send !== undefined) {
  const result = await run(JSON.parse(process.argv[2]) as ListClientSpec)
  process.send(result, () => process.exit(0))
}
