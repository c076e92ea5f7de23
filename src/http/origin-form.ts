/**
 * The request target's other forms than a path. Requests in absolute form
 * (`GET http://host:9443/manager/mvc/restservice/appinfo.json`, as a
 * client sends them to a proxy) made origin-form before anything reads the URL: the router took
 * them, but whatever cut the URL at a known prefix did not (the console's forwarders sent
 * `/console/api/admin/fleet` to `/__admin/i/admin/fleet`), nor did the not-found answer's "did you
 * mean". The authority in the target replaces the Host header sent, as RFC 9112 §3.2.2 asks, so
 * links name it; an HTTP/1.1 request without a Host is still refused. `OPTIONS *` is answered
 * here, for the server.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http'
import { refusedAfterClientError, SERVER_METHODS } from './client-errors.js'

const ABSOLUTE = /^https?:\/\/([^/?#]*)/i

/** Requests whose Host is the authority of their absolute-form target (RFC 9112 3.2.2), which a refusal of it names. */
export const hostFromTarget = new WeakSet<IncomingMessage>()

export function originForm(listener: RequestListener): RequestListener {
  return (request: IncomingMessage, response: ServerResponse) => {
    const url = request.url
    // `OPTIONS *` (asterisk form), a ping some load balancers send: it names no path, so no route
    // answers it (it was a 404 "Nothing is served at *").
    // HTTP/1.1 without a Host goes on to be refused as any request without one (limits.ts).
    if (url === '*' && request.method === 'OPTIONS' && (request.headers.host !== undefined || request.httpVersion === '1.0')) {
      if (refusedAfterClientError(request)) return
      response.writeHead(204, { allow: SERVER_METHODS }).end()
      return
    }
    // Origin form, the usual case, costs one character test.
    if (url !== undefined && url.charCodeAt(0) !== 0x2f) {
      const absolute = ABSOLUTE.exec(url)
      if (absolute !== null) {
        const rest = url.slice(absolute[0].length)
        request.url = rest === '' || rest.startsWith('?') ? `/${rest}` : rest
        // Only in place of a Host sent: HTTP/1.1 without one is refused (RFC 9112 §3.2), target or not.
        // A user name before `@` is no part of the host (RFC 9110 §4.2.4: a client sends none).
        const authority = absolute[1].slice(absolute[1].lastIndexOf('@') + 1)
        if (authority !== '' && request.headers.host !== undefined) {
          request.headers.host = authority
          hostFromTarget.add(request)
        }
      }
    }
    return listener(request, response)
  }
}
