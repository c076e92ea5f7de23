/**
 * The console's pages, in navigation order: this list is the navigation. A new page is a
 * module here (markup, scripts, JSON API) and a script in web/console/.
 */
import type { ConsolePage } from '../page.js'
import { fleetPage } from './fleet.js'

export const PAGES: readonly ConsolePage[] = [fleetPage]
