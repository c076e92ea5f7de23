/**
 * One page of the console: where it is, what the navigation calls it, its markup and scripts,
 * and the JSON API it needs. A page is one module in src/console/pages/ plus one script in
 * web/console/; src/console/pages/index.ts lists them, and that list is the navigation.
 */
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import type { FleetEngine } from '../fleet/fleet.js'
import type { Journal } from '../journal/journal.js'
import type { Manager } from '../manager/manager.js'
import type { FleetHistory } from './fleet-history.js'
import type { EventHub } from './stream.js'
import type { Raw } from './markup.js'

/** What every page module's API is given. */
export interface ConsoleContext {
  engine: FleetEngine
  manager: Manager
  /** the request journal (the Traffic page's `journal` topic follows it) */
  journal: Journal
  /** the REST operations' application path, e.g. `/manager/mvc` */
  appPath: string
  /** the console's live stream: pages add topics here (see stream.ts) */
  hub: EventHub
  history: FleetHistory
  /**
   * Runs a request through the whole app, as a client's would run (`app.inject`), over TLS as far
   * as the app can tell when `encrypted`: the console's buttons call the real REST and admin
   * operations this way, so they answer with exactly the operations' messages and errors. Use
   * `rest()`/`admin()` of proxy.ts for the credentials.
   */
  inject: ConsoleInject
  /** the REST and admin credentials, for requests the console makes on the user's behalf */
  credentials: { rest: { user: string; password: string }; admin: { user: string; password: string } }
}

/** Runs a request through the whole app; `encrypted`: as if it came over TLS (the console's own request did). */
export type ConsoleInject = (options: InjectOptions, over?: { encrypted: boolean }) => PromiseLike<LightMyRequestResponse>

export interface ConsolePage {
  /** short name: the page's key, and the `data-page` of its <main> */
  readonly id: string
  /** the navigation's label and the document title */
  readonly title: string
  /** path under /console, with fastify parameters (`/agents/:name`) */
  readonly path: string
  /** a page without an entry of its own in the navigation names the entry it belongs to */
  readonly navId?: string
  /** the markup inside <main>, given the path's parameters and the query string */
  body(params: Record<string, string>, context: ConsoleContext, query: Record<string, unknown>): Raw
  /** the document title when it depends on the parameters */
  titleOf?(params: Record<string, string>): string
  /** script URLs loaded after console.js (the page's own script in web/console/) */
  readonly scripts: readonly string[]
  readonly styles?: readonly string[]
  /** registers the page's JSON routes; paths are relative to /console/api */
  api?(scope: FastifyInstance, context: ConsoleContext): void
}
