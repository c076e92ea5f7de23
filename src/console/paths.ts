/** Where the console lives. */
export const CONSOLE_PREFIX = '/console'
/** its own files (web/console/) */
export const ASSETS = `${CONSOLE_PREFIX}/assets`
/** its JSON API and live stream */
export const API_PREFIX = `${CONSOLE_PREFIX}/api/`
