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
  /** per request, ms; default 30 s */
  timeoutMs?: number
}

export function httpTransport(options: TransportOptions = {}): Transport {
  return (req) =>
    new Promise((resolve, reject) => {
      const url = new URL(req.url)
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest
      const headers: Record<string, string> = { ...req.headers }
      if (req.body !== undefined) headers['content-length'] = String(Buffer.byteLength(req.body))
      const outgoing = send(
        url,
        {
          method: req.method,
          headers,
          timeout: options.timeoutMs ?? 30_000,
          ...(url.protocol === 'https:' ? { rejectUnauthorized: options.insecure !== true, ...(options.ca === undefined ? {} : { ca: options.ca }) } : {})
        },
        (response) => {
          const chunks: Buffer[] = []
          response.on('data', (chunk: Buffer) => chunks.push(chunk))
          response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }))
          response.on('error', reject)
        }
      )
      outgoing.on('timeout', () => {
        // ETIMEDOUT, as the system's own connect timeout, so callers tell it by code (target-probe.ts).
        outgoing.destroy(Object.assign(new Error(`no answer from ${url.origin} within ${options.timeoutMs ?? 30_000} ms`), { code: 'ETIMEDOUT' }))
      })
      outgoing.on('error', reject)
      outgoing.end(req.body)
    })
}
