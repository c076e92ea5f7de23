/**
 * Link addresses. The real manager builds them as `{base_url}/mvc/restservice/...` where
 * base_url already ends with `mvc`, so `mvc` appears twice; the simulator does the same, with
 * base_url = `<protocol>://<host><appPath>` of the request.
 *
 * Strings that depend only on the base are built once per distinct base (a client normally
 * uses one), not per request.
 */
import type { FastifyRequest } from 'fastify'
import type { Link } from './schemas.js'

export interface LinkBase {
  /** `{base_url}/mvc/restservice` */
  rest: string
  /** the operations' request path, `<app path>/restservice`: what a self link cuts from the request's URL */
  servicePath: string
  /** the two templated relations of every agentinfo item */
  online: Link
  all: Link
}

export class Links {
  private readonly bases = new Map<string, LinkBase>()
  /** the last base asked for: a client sends the same Host again and again, so most requests compare two strings rather than join and look up a key */
  private last: { protocol: string; host: string; base: LinkBase } | undefined

  constructor(private readonly appPath: string) {}

  base(request: FastifyRequest): LinkBase {
    // No Host (HTTP/1.0 may send none; HTTP/1.1 may send it empty): the address the request came
    // to, where links read `http:///manager/…` before.
    return this.baseOf(request.protocol, request.host || localAuthority(request.socket))
  }

  /** The base for a protocol and Host header, as `base` reads them from a fastify request. */
  baseOf(protocol: string, host: string): LinkBase {
    const last = this.last
    if (last !== undefined && last.host === host && last.protocol === protocol) return last.base
    const base = this.keyedBase(protocol, host)
    this.last = { protocol, host, base }
    return base
  }

  private keyedBase(protocol: string, host: string): LinkBase {
    const key = `${protocol}://${host}`
    let base = this.bases.get(key)
    if (base === undefined) {
      const rest = `${key}${this.appPath}/mvc/restservice`
      base = {
        rest,
        servicePath: `${this.appPath}/restservice`,
        // RFC 6570 form continuations: expand {&agentname} to narrow the list to one agent,
        // {&agentstate} to add states.
        online: {
          rel: 'online_agents_with_modules',
          href: `${rest}/agentinfo?agentstate=ONLINE&agentwithmodules=true{&agentstate}`
        },
        all: { rel: 'all_agents_with_modules', href: `${rest}/agentinfo?agentwithmodules=true{&agentname}` }
      }
      // Host headers come from clients; the bound keeps a hostile client from growing the map.
      if (this.bases.size > 64) this.bases.clear()
      this.bases.set(key, base)
    }
    return base
  }
}

/** The request's own address below `/restservice`, query included, as a self link. */
export function selfLink(base: LinkBase, request: Pick<FastifyRequest, 'url'>): Link {
  const url = request.url
  return { rel: 'self', href: base.rest + asUriText(url.slice(selfPathStart(base, url))) }
}

/**
 * Whether a character stands in a URI's path or query as it is (RFC 3986: unreserved,
 * sub-delims, `:`, `@`, `/`, `?`); `%` is not, as it must start an escape.
 */
export function uriPlain(code: number): boolean {
  return (
    (code >= 0x61 && code <= 0x7a) || // a-z
    (code >= 0x40 && code <= 0x5a) || // @ A-Z
    (code >= 0x26 && code <= 0x3b) || // & ' ( ) * + , - . / 0-9 : ;
    code === 0x3d || code === 0x3f || code === 0x5f || code === 0x7e || code === 0x21 || code === 0x24 // = ? _ ~ ! $
  )
}

/**
 * A request target as a URI may hold it. Node takes characters in a target that RFC 3986 does
 * not (`"<>\^`{|}`, `[` `]` in a query, a `%` that starts no escape): echoed as they came, a
 * client's strict URI parser (Java's java.net.URI, for one) refused the whole link. Each is
 * written as its escape; valid escapes stay as they are. (Node refuses bytes past ASCII in a
 * target; a URL given another way, one character a byte, has each escaped as its byte.)
 */
export function asUriText(text: string): string {
  let k = 0
  while (k < text.length && (uriPlain(text.charCodeAt(k)) || isEscapeAt(text, k))) k++
  if (k === text.length) return text
  let out = text.slice(0, k)
  for (; k < text.length; k++) {
    const code = text.charCodeAt(k)
    if (uriPlain(code) || isEscapeAt(text, k)) out += text[k]
    // A target's characters are bytes (Node reads it as latin1): each is escaped as its byte.
    else out += code < 0x100 ? `%${code < 0x10 ? '0' : ''}${code.toString(16).toUpperCase()}` : encodeURIComponent(text[k])
  }
  return out
}

/** Whether a `%` that starts a valid escape (two hex digits) stands at `at`. */
export function isEscapeAt(text: string, at: number): boolean {
  return text.charCodeAt(at) === 0x25 && isHex(text.charCodeAt(at + 1)) && isHex(text.charCodeAt(at + 2))
}

function isHex(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66)
}

/**
 * Where a self link's path starts in a request URL: after the operations' path
 * (`<app path>/restservice`), so an app path that holds `restservice` itself is cut whole;
 * for a URL outside it, after its first `/restservice/`, or nothing.
 */
export function selfPathStart(base: LinkBase, url: string): number {
  const service = base.servicePath
  if (url.startsWith(service) && url.charCodeAt(service.length) === SLASH) return service.length
  const at = url.indexOf('/restservice/')
  return at === -1 ? url.length : at + '/restservice'.length
}

const SLASH = 0x2f

export function viewByQuery(base: LinkBase, name: string): Link {
  return { rel: 'self', href: `${base.rest}/viewagentortemplate?name=${encodeURIComponent(name)}` }
}

export function viewByPath(base: LinkBase, name: string): Link {
  return { rel: 'self', href: `${base.rest}/viewagentortemplate/${encodeURIComponent(name)}` }
}

/** An agentinfo item's self link: agentinfo for that agent by name. */
export function agentSelfHref(base: LinkBase, name: string): string {
  return `${base.rest}/agentinfo?agentname=${encodeURIComponent(name)}`
}

export function agentinfoItemLinks(base: LinkBase, name: string): Link[] {
  return [
    { rel: 'self', href: agentSelfHref(base, name) },
    base.online,
    base.all
  ]
}

/** `address:port` the socket was reached at, the address bracketed when it is IPv6. */
function localAuthority(socket: { localAddress?: string; localPort?: number }): string {
  const address = socket.localAddress ?? 'localhost'
  return `${address.includes(':') ? `[${address}]` : address}${socket.localPort === undefined ? '' : `:${socket.localPort}`}`
}
