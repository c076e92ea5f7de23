/** Raw TCP clients for the real-socket hardening tests: exact bytes out, everything back until close. */
import { connect, type Socket } from 'node:net'

export interface RawAnswer {
  /** everything the server sent, as latin1 text */
  text: string
  /** the status of the first response, or undefined when none came */
  status: number | undefined
  /** ms from the first byte sent until the server closed */
  closedAfterMs: number
}

/** Waits for 'connect'. */
export async function open(port: number): Promise<Socket> {
  const socket = connect({ host: '127.0.0.1', port })
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve)
    socket.once('error', reject)
  })
  return socket
}

/** Collects what the server sends until it closes the connection, or until `boundMs` passed (then destroys it). */
export function collect(socket: Socket, boundMs: number): Promise<RawAnswer> {
  const began = performance.now()
  const chunks: Buffer[] = []
  return new Promise((resolve) => {
    const timer = setTimeout(() => socket.destroy(), boundMs)
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('error', () => undefined)
    socket.once('close', () => {
      clearTimeout(timer)
      const text = Buffer.concat(chunks).toString('latin1')
      const match = /^HTTP\/1\.1 (\d{3})/.exec(text)
      resolve({ text, status: match === null ? undefined : Number(match[1]), closedAfterMs: performance.now() - began })
    })
  })
}

/** One request on a fresh connection; the server is asked to close after answering. */
export async function exchange(port: number, bytes: Buffer | string, options: { end?: boolean; boundMs?: number } = {}): Promise<RawAnswer> {
  const socket = await open(port)
  const answer = collect(socket, options.boundMs ?? 5000)
  socket.write(bytes)
  if (options.end === true) socket.end()
  return answer
}

/** A complete HTTP/1.1 request with Connection: close. */
export function rawRequest(method: string, target: string, headers: Record<string, string | string[]>, body?: Buffer | string): Buffer {
  const payload = body === undefined ? Buffer.alloc(0) : Buffer.from(body)
  let head = `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n`
  for (const [name, value] of Object.entries(headers)) for (const item of Array.isArray(value) ? value : [value]) head += `${name}: ${item}\r\n`
  if (body !== undefined) head += `Content-Length: ${payload.length}\r\n`
  return Buffer.concat([Buffer.from(`${head}\r\n`, 'latin1'), payload])
}

/** The body of a raw answer (after the head), for envelope checks. */
export function bodyOf(answer: RawAnswer): string {
  const end = answer.text.indexOf('\r\n\r\n')
  return end === -1 ? '' : answer.text.slice(end + 4)
}
