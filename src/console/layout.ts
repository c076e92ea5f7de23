/**
 * The console's HTML: every page is one shell (header, the navigation of PAGES, a main region)
 * around the page's own markup, with the page's scripts at the end. Pages are plain HTML that
 * works with the keyboard and a screen reader; the scripts fill in live figures.
 */
import type { ConsolePage } from './page.js'
import { document, html, raw, type Raw } from './markup.js'
import { ASSETS, CONSOLE_PREFIX } from './paths.js'

/**
 * Security headers of every console page, the login form's too: nothing but the console's own
 * files runs or loads, and no other site frames a page (clickjacking a login form among them).
 */
export const PAGE_HEADERS = Object.freeze({
  'content-security-policy': "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store'
})

interface ShellOptions {
  /** the page shown (its nav entry is marked current) */
  page: ConsolePage
  /** every page, for the navigation */
  pages: readonly ConsolePage[]
  /** the page's markup inside <main> */
  body: Raw
  /** the logged-in user, shown with the log-out button */
  user: string
  title?: string
}

export function shell({ page, pages, body, user, title }: ShellOptions): string {
  const current = page.navId ?? page.id
  const nav = pages
    .filter((p) => p.navId === undefined)
    .map((p) => html`<li><a href="${CONSOLE_PREFIX}${p.path}"${raw(p.id === current ? ' aria-current="page"' : '')}>${p.title}</a></li>`)
  return document({
    title: `${title ?? page.title} · fleetsim console`,
    styles: [`${ASSETS}/console.css`, ...(page.styles ?? [])],
    scripts: [`${ASSETS}/console.js`, ...page.scripts],
    body: html`<a class="skip" href="#main">Skip to content</a>
<header class="top">
  <a class="brand" href="${CONSOLE_PREFIX}/">fleetsim <span>console</span></a>
  <nav aria-label="Console pages"><ul>${nav}</ul></nav>
  <div class="who"><span>${user}</span> <button type="button" id="logout" class="link">Log out</button></div>
</header>
<main id="main" tabindex="-1" data-page="${page.id}">
${body}
</main>`
  })
}

