import { describe, expect, it } from 'vitest'
import type { ConfigContext } from '../../src/config.js'
import { parserFor, refusalOf } from '../config/helpers.js'

const context: ConfigContext = {
  now: () => 0,
  cpuCount: () => 2,
  readFile: (path) => {
    if (path === 'admin.txt') return 'from-file\n'
    throw new Error(`ENOENT: ${path}`)
  },
  isFile: () => false
}
const parse = parserFor(context)

const messageOf = (argv: string[], env: Record<string, string> = {}): string => refusalOf(parse, argv, env)

describe('limit flags', () => {
  it('read every limit from its flag', () => {
    const config = parse([
      '--body-limit', '2048', '--max-list-items', '10', '--max-query-length', '4096', '--request-timeout', '9000',
      '--headers-timeout', '3000', '--keep-alive-timeout', '700', '--max-connections', '50'
    ])
    expect(config).toMatchObject({ bodyLimit: 2048, maxListItems: 10, maxQueryLength: 4096, requestTimeout: 9000, headersTimeout: 3000, keepAliveTimeout: 700, maxConnections: 50 })
  })

  it('read every limit from its env twin', () => {
    const config = parse([], {
      FLEETSIM_BODY_LIMIT: '1', FLEETSIM_MAX_LIST_ITEMS: '2', FLEETSIM_MAX_QUERY_LENGTH: '3', FLEETSIM_REQUEST_TIMEOUT: '40',
      FLEETSIM_HEADERS_TIMEOUT: '5', FLEETSIM_KEEP_ALIVE_TIMEOUT: '6', FLEETSIM_MAX_CONNECTIONS: '7'
    })
    expect(config).toMatchObject({ bodyLimit: 1, maxListItems: 2, maxQueryLength: 3, requestTimeout: 40, headersTimeout: 5, keepAliveTimeout: 6, maxConnections: 7 })
  })

  it('refuse a limit that is not a positive integer, naming the flag and the rule', () => {
    expect(messageOf(['--body-limit', '1mb'])).toBe('--body-limit must be an integer from 1 to 1073741824, got "1mb"')
    expect(messageOf(['--max-connections', '0'])).toBe('--max-connections must be an integer from 1 to 1000000, got "0"')
    expect(messageOf([], { FLEETSIM_REQUEST_TIMEOUT: '-1' })).toBe('--request-timeout must be an integer from 1 to 86400000 (milliseconds), got "-1" (from FLEETSIM_REQUEST_TIMEOUT)')
  })

  it('default the connection flags: 256 connections per client address, 5000 ms of shutdown grace', () => {
    expect(parse([])).toMatchObject({ maxConnectionsPerClient: 256, shutdownGrace: 5000 })
  })

  it('read the connection flags from their flags and env twins', () => {
    expect(parse(['--max-connections-per-client', '8', '--shutdown-grace', '0'])).toMatchObject({ maxConnectionsPerClient: 8, shutdownGrace: 0 })
    expect(parse([], { FLEETSIM_MAX_CONNECTIONS_PER_CLIENT: '9', FLEETSIM_SHUTDOWN_GRACE: '1500' })).toMatchObject({ maxConnectionsPerClient: 9, shutdownGrace: 1500 })
  })

  it('refuse a per-client connection limit that is not a positive integer', () => {
    expect(messageOf(['--max-connections-per-client', '0'])).toBe('--max-connections-per-client must be an integer from 1 to 1000000, got "0"')
  })

  it('refuse a shutdown grace beyond a minute, naming the unit', () => {
    expect(messageOf(['--shutdown-grace', '60001'])).toBe('--shutdown-grace must be an integer from 0 to 60000 (milliseconds), got "60001"')
    expect(messageOf([], { FLEETSIM_SHUTDOWN_GRACE: '5s' })).toBe('--shutdown-grace must be an integer from 0 to 60000 (milliseconds), got "5s" (from FLEETSIM_SHUTDOWN_GRACE)')
  })

  it('suggest the nearest flag for a mistyped one', () => {
    expect(messageOf(['--max-conections', '5'])).toBe('unknown flag --max-conections; did you mean --max-connections? (see fleetsim serve --help)')
  })

  it('refuse a headers timeout longer than the request timeout', () => {
    expect(messageOf(['--headers-timeout', '40000'])).toBe('--headers-timeout (40000) must not exceed --request-timeout (30000); lower the first or raise the second')
  })
})

describe('admin credentials', () => {
  it('default to the REST user and password', () => {
    expect(parse(['--user', 'ops', '--password', 'pw'])).toMatchObject({ adminUser: 'ops', adminPassword: 'pw' })
  })

  it('come from their own flags, env twins or file', () => {
    expect(parse(['--admin-user', 'root', '--admin-password', 'a'])).toMatchObject({ adminUser: 'root', adminPassword: 'a' })
    expect(parse([], { FLEETSIM_ADMIN_PASSWORD: 'e' }).adminPassword).toBe('e')
    expect(parse(['--admin-password-file', 'admin.txt']).adminPassword).toBe('from-file')
  })

  it('refuse --admin-password and --admin-password-file together', () => {
    expect(messageOf(['--admin-password', 'a', '--admin-password-file', 'admin.txt'])).toBe('--admin-password and --admin-password-file cannot be used together; give one of them')
  })
})
