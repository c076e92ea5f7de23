/**
 * A small HTTP(S) client for the commands that talk to a running manager (`fleetsim report`,
 * `fleetsim conformance`). Built on node:http/https rather than fetch so a CA file or
 * `--insecure` applies to this client only, never to the whole process.
 */
import { request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'

export interface HttpRequest {
  method: string
  url: string
  headers?: Record<string, string>
  body?: string
}

export interface HttpAnswer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

/** Sends one request and reads the whole answer. Tests pass their own (e.g. over app.inject). */
export type Transport = (request: HttpRequest) => Promise<HttpAnswer>

export interface TransportOptions {
  /** PEM of a CA to trust (fleetsim's ca.pem) */
  ca?: string
  /** accept any server certificate */
  insecure?: boolean
  /** per request, ms, from sending it to its answer's last byte; default 30 s */
  timeoutMs?: number
  /** the longest answer read, bytes; default ANSWER_MAX_BYTES */
  maxAnswerBytes?: number
}

/**
 * The longest answer read: 256 MiB, the ONLINE list of some 300,000 agents. Past it the answer
 * is dropped with an error rather than held: a target sending without end took memory without
 * end (a 300 MB body, about 1 GB).
 */
export const ANSWER_MAX_BYTES = 256 * 1024 * 1024

export function httpTransport(options: TransportOptions = {}): Transport {
  const timeoutMs = options.timeoutMs ?? 30_000
  const maxBytes = options.maxAnswerBytes ?? ANSWER_MAX_BYTES
  return (req) =>
    new Promise((resolve, reject) => {
      const url = new URL(req.url)
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest
      const headers: Record<string, string> = { ...req.headers }
      if (req.body !== undefined) headers['content-length'] = String(Buffer.byteLength(req.body))
      // ETIMEDOUT, as the system's own connect timeout, so callers tell it by code (target-probe.ts);
      // E_NO_ANSWER when the connection was made: the target is up and said nothing.
      const timedOut = (what: string) => {
        const connected = outgoing.socket !== null && !outgoing.socket.connecting
        return Object.assign(new Error(`${what} from ${url.origin} within ${timeoutMs} ms`), { code: connected ? 'E_NO_ANSWER' : 'ETIMEDOUT' })
      }
      // The whole exchange, not only the silences between bytes: a target that sends its answer a
      // byte now and then held a run for good.
      const deadline = setTimeout(() => outgoing.destroy(timedOut('no whole answer')), timeoutMs)
      const settle = <T>(then: (value: T) => void) => (value: T) => {
        clearTimeout(deadline)
        then(value)
      }
      const outgoing = send(
        url,
        {
          method: req.method,
          headers,
          timeout: timeoutMs,
          ...(url.protocol === 'https:' ? { rejectUnauthorized: options.insecure !== true, ...(options.ca === undefined ? {} : { ca: options.ca }) } : {})
        },
        (response) => {
          const chunks: Buffer[] = []
          let bytes = 0
          response.on('data', (chunk: Buffer) => {
            bytes += chunk.length
            if (bytes > maxBytes) {
              const error = new Error(`the answer from ${url.origin} is longer than ${maxBytes} bytes, more than this client reads`)
              return void outgoing.destroy(Object.assign(error, { code: 'E_ANSWER_TOO_LARGE' }))
            }
            chunks.push(chunk)
          })
          response.on('end', settle(() => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') })))
          response.on('error', settle(reject))
        }
      )
      outgoing.on('timeout', () => outgoing.destroy(timedOut('no answer')))
      outgoing.on('error', settle(reject))
      outgoing.end(req.body)
    })
}
