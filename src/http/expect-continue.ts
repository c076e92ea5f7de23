/**
 * `Expect: 100-continue`: the client sends the head and waits for `100 Continue` before it sends
 * the body (curl does so for bodies over 1 MiB), so that a request refused from its head alone
 * costs no upload. Node sends 100 Continue at once, before the app has seen the head, unless the
 * server listens to 'checkContinue'; then a 401, a 413 by Content-Length or a 415 came after a
 * 100 that had invited the body.
 *
 * With `continueWhenRead`, 100 Continue goes out when the app first reads the body (fastify's
 * body parser starts reading it), and never when the app answers without reading it: every
 * refusal decided from the head (401, 404, 405, 406, 413 by Content-Length, 415, 431, 503) is the
 * first and only answer. Node then closes the connection after that answer (Connection: close),
 * as the client may or may not send the body it announced. A request whose head announces no body
 * (no Content-Length or 0, no Transfer-Encoding) gets no 100 Continue, and keeps its connection.
 *
 * Any other expectation (`Expect: 200-ok`) Node answered with a bare 417 and no body, keeping
 * the connection, whose next bytes might be the body: `refuseOtherExpectations` answers 417
 * E_EXPECTATION_FAILED in the envelope and closes it.
 */
import { announcesBody } from '../lib/announced-body.js'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { apiError } from '../protocol/errors.js'
import { sendErrorAndClose } from './error-document.js'

/** Serves requests with `Expect: 100-continue` as 'request' events, sending 100 Continue only when their body is first read. */
export function continueWhenRead(server: Pick<Server, 'on' | 'emit'>): void {
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    // Node takes any Expect naming 100-continue among others (`100-continue, foo`) as this one.
    if (!ONLY_CONTINUE.test(request.headers.expect ?? '')) return refuseExpectation(request, response)
    if (announcesBody(request.headers)) deferContinue(request, response)
    // Nothing is to follow the head (a GET whose client adds the header to every request): Node
    // would close the connection after the answer, as if a body might follow; it keeps it.
    // `_expect_continue` is what Node's writeHead reads to decide so (undocumented, since v0.x).
    else (response as ServerResponse & { _expect_continue: boolean })._expect_continue = false
    // The request listeners all see it (connections.ts counts it in flight), then the app.
    server.emit('request', request, response)
  })
}

/**
 * Sends 100 Continue the first time the stream's machinery asks the request for body bytes
 * (Readable's `_read`: a 'data' listener, resume() or read()), unless the answer has begun: Node
 * reads the unread body of an answered request away itself, which must not send a 100 after the
 * answer.
 */
function deferContinue(request: IncomingMessage, response: ServerResponse): void {
  const read = request._read
  request._read = function (this: IncomingMessage, size: number) {
    request._read = read
    if (!response.headersSent) response.writeContinue()
    read.call(this, size)
  }
}

/**
 * Answers a request whose Expect names anything but 100-continue with 417 E_EXPECTATION_FAILED,
 * in the format its accept asks for (XML without one), and closes the connection: its body, if
 * it sends one, is not read.
 */
export function refuseOtherExpectations(server: Pick<Server, 'on'>): void {
  server.on('checkExpectation', refuseExpectation)
}

/** `Expect: 100-continue` alone, as RFC 9110 (10.1.1) defines it: a list naming more is another expectation. */
const ONLY_CONTINUE = /^\s*100-continue\s*$/i

function refuseExpectation(request: IncomingMessage, response: ServerResponse): void {
  sendErrorAndClose(request.headers, response, apiError('E_EXPECTATION_FAILED', { expect: request.headers.expect ?? '' }))
}
