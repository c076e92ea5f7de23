/** Where a manager's operations are, from the base URL a user gives. */

/**
 * `https://h:9443/manager/mvc/restservice/` → `https://h:9443/manager/mvc`: the scheme, host,
 * port and application path, without a trailing slash, `/restservice`, query or fragment.
 */
export function normaliseTarget(target: string): URL {
  const url = new URL(target)
  url.pathname = url.pathname.replace(/\/+$/, '').replace(/\/restservice$/, '')
  url.search = ''
  url.hash = ''
  return url
}

/** The application path: `/manager/mvc`, or '' for a base URL without one (which URL writes `/`). */
export const appPath = (base: URL): string => (base.pathname === '/' ? '' : base.pathname)

/** The base URL as text, without the slash URL adds to an empty path: `https://h:9443`. */
export const baseText = (base: URL): string => base.href.replace(/\/$/, '')

/** The URL operations are named under: `https://h:9443/manager/mvc/restservice/`. */
export const serviceUrl = (base: URL): string => `${baseText(base)}/restservice/`
