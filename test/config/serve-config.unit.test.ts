import { describe, expect, it } from 'vitest'
import { ConfigError, SERVE_FLAGS, parseServeArgs, parseServeConfig, type ConfigContext } from '../../src/config.js'
import { envName } from '../../src/flags/flag.js'
import { STORED_LIMIT_DEFAULTS } from '../../src/manager/limits.js'

const NOW = Date.UTC(2030, 0, 2, 3, 4, 5)
const files: Record<string, string> = {
  'secret.txt': 's3cret\nignored second line\n',
  'spaced.txt': 'secret \n',
  'crlf.txt': 'secret\r\n',
  'bom.txt': '\uFEFFs3cret\n',
  'empty.txt': '\n',
  'scenario.yaml': 'stages: []\n'
}
const context: ConfigContext = {
  now: () => NOW,
  cpuCount: () => 6,
  readFile: (path) => {
    const text = files[path]
    if (text === undefined) throw new Error(`ENOENT: ${path}`)
    return text
  },
  isFile: (path) => path in files
}

const parse = (argv: string[], env: Record<string, string> = {}) => parseServeConfig(argv, env, context)

function errorOf(argv: string[], env: Record<string, string> = {}): ConfigError {
  try {
    parse(argv, env)
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return error as ConfigError
  }
  throw new Error(`expected ${argv.join(' ')} to be rejected`)
}

describe('parseServeConfig defaults and precedence', () => {
  it('gives the documented defaults when nothing is set', () => {
    expect(parse([])).toEqual({
      host: '127.0.0.1',
      port: 9443,
      http: false,
      appPath: '/manager/mvc',
      user: 'admin',
      password: 'admin',
      // Not given: 1000 agents and seed 1, or a scenario's own (src/simulation.ts).
      agents: undefined,
      seed: undefined,
      scenario: undefined,
      speed: 1,
      workers: 6,
      dataDir: '.fleetsim',
      logLevel: 'info',
      metricsAuth: false,
      console: true,
      startTime: NOW,
      paused: false,
      joinDelay: { min: 2, max: 9 },
      statusPoll: 60,
      adminUser: 'admin',
      adminPassword: 'admin',
      bodyLimit: 1048576,
      maxListItems: 100000,
      maxQueryLength: 1048576,
      requestTimeout: 30000,
      headersTimeout: 10000,
      keepAliveTimeout: 5000,
      sendTimeout: 60000,
      maxConnections: 1024,
      maxConnectionsPerClient: 256,
      shutdownGrace: 5000,
      strict: false,
      journalSize: 10000,
      journalMaxBytes: 33554432,
      journalBodyBytes: 4096,
      keptAnswersMaxBytes: 33554432,
      unsentAnswersMaxBytes: 268435456,
      stateFile: undefined,
      snapshotInterval: 300,
      maxLabels: 10000,
      maxLabelsPerAgent: 64,
      maxLabelValueBytes: 4096,
      maxNameBytes: 1024,
      maxTextBytes: 4096,
      maxVerbatimBytes: 65536,
      maxTemplates: 10000,
      maxFields: 1000,
      clockFlagsGiven: [],
      fleetFlagsGivenAs: {}
    })
  })

  it('returns a frozen object', () => {
    expect(Object.isFrozen(parse([]))).toBe(true)
  })

  it('reads every flag from the command line', () => {
    const config = parse([
      '--host', '0.0.0.0', '--port=8443', '--http', '--app-path', '/nx/mvc/', '--user', 'ops', '--password', 'pw',
      '--agents', '50', '--seed', '7', '--scenario', 'scenario.yaml', '--speed', '3600', '--workers', '2',
      '--data-dir', '/tmp/sim', '--log-level', 'debug', '--start-time', '2024-01-01T00:00:00Z', '--paused',
      '--strict', '--journal-size', '50', '--journal-max-bytes', '2097152', '--journal-body-bytes', '0', '--kept-answers-max-bytes', '0', '--unsent-answers-max-bytes', '1048576', '--metrics-auth', '--no-console', '--state-file', '/tmp/sim/state.bin', '--snapshot-interval', '0'
    ])
    expect(config).toEqual({
      host: '0.0.0.0',
      port: 8443,
      http: true,
      appPath: '/nx/mvc',
      user: 'ops',
      password: 'pw',
      agents: 50,
      seed: 7,
      scenario: 'scenario.yaml',
      speed: 3600,
      workers: 2,
      dataDir: '/tmp/sim',
      logLevel: 'debug',
      metricsAuth: true,
      console: false,
      startTime: Date.UTC(2024, 0, 1),
      paused: true,
      joinDelay: { min: 2, max: 9 },
      statusPoll: 60,
      adminUser: 'ops',
      adminPassword: 'pw',
      bodyLimit: 1048576,
      maxListItems: 100000,
      maxQueryLength: 1048576,
      requestTimeout: 30000,
      headersTimeout: 10000,
      keepAliveTimeout: 5000,
      sendTimeout: 60000,
      maxConnections: 1024,
      maxConnectionsPerClient: 256,
      shutdownGrace: 5000,
      strict: true,
      journalSize: 50,
      journalMaxBytes: 2097152,
      journalBodyBytes: 0,
      keptAnswersMaxBytes: 0,
      unsentAnswersMaxBytes: 1048576,
      stateFile: '/tmp/sim/state.bin',
      snapshotInterval: 0,
      ...STORED_LIMIT_DEFAULTS,
      // what a run resumed from --state-file names as ignored
      clockFlagsGiven: ['--speed', '--start-time', '--paused'],
      fleetFlagsGivenAs: {}
    })
  })

  it('rejects an empty --state-file, naming the flag', () => {
    expect(() => parse(['--state-file', ' '])).toThrow('--state-file must not be empty, got " "')
  })

  it('rejects a --snapshot-interval that is not a number of seconds, naming the flag', () => {
    expect(() => parse(['--snapshot-interval', '5m'])).toThrow('--snapshot-interval must be an integer from 0 to 86400 (seconds), got "5m"')
  })

  it('rejects --snapshot-interval (or its env twin) without --state-file, which it would time nothing for', () => {
    const error = errorOf(['--snapshot-interval', '60'])
    expect(error.code).toBe('FLEETSIM_MISSING_VALUE')
    expect(error.message).toBe('--snapshot-interval sets how often --state-file is saved, and no --state-file is given; add --state-file <file> or leave --snapshot-interval out')
    expect(errorOf([], { FLEETSIM_SNAPSHOT_INTERVAL: '0' }).message).toMatch(/^FLEETSIM_SNAPSHOT_INTERVAL sets how often --state-file is saved/)
    expect(parse(['--snapshot-interval', '60'], { FLEETSIM_STATE_FILE: 'state.bin' }).snapshotInterval).toBe(60)
  })

  it('rejects a --journal-size that is not a count, naming the flag', () => {
    expect(() => parse(['--journal-size', '-1'])).toThrow('--journal-size must be an integer from 0 to 10000000, got "-1"')
  })

  it('rejects a --journal-max-bytes below 1 MiB, naming the flag and the range', () => {
    expect(() => parse(['--journal-max-bytes', '1000'])).toThrow('--journal-max-bytes must be an integer from 1048576 to 1073741824 (bytes), got "1000"')
  })

  it('rejects a --journal-body-bytes above 1 MiB, naming the flag and the range', () => {
    expect(() => parse(['--journal-body-bytes', '2000000'])).toThrow('--journal-body-bytes must be an integer from 0 to 1048576 (bytes), got "2000000"')
  })

  it('reads --journal-body-bytes from FLEETSIM_JOURNAL_BODY_BYTES', () => {
    expect(parse([], { FLEETSIM_JOURNAL_BODY_BYTES: '65536' }).journalBodyBytes).toBe(65536)
  })

  it('reads --journal-max-bytes from FLEETSIM_JOURNAL_MAX_BYTES', () => {
    expect(parse([], { FLEETSIM_JOURNAL_MAX_BYTES: '8388608' }).journalMaxBytes).toBe(8388608)
  })

  it('reads every flag from its FLEETSIM_ env twin', () => {
    const config = parse([], {
      FLEETSIM_HOST: '::1', FLEETSIM_PORT: '1234', FLEETSIM_HTTP: 'true', FLEETSIM_APP_PATH: '/x/mvc',
      FLEETSIM_USER: 'u', FLEETSIM_PASSWORD: 'p', FLEETSIM_AGENTS: '3', FLEETSIM_SEED: '9',
      FLEETSIM_SCENARIO: 'scenario.yaml', FLEETSIM_SPEED: '0.5', FLEETSIM_WORKERS: '4', FLEETSIM_DATA_DIR: 'd',
      FLEETSIM_LOG_LEVEL: 'warn', FLEETSIM_START_TIME: '2024-06-01T12:00:00+02:00', FLEETSIM_PAUSED: 'yes',
      FLEETSIM_METRICS_AUTH: 'true'
    })
    expect(config).toMatchObject({
      host: '::1', port: 1234, http: true, appPath: '/x/mvc', user: 'u', password: 'p', agents: 3, seed: 9,
      scenario: 'scenario.yaml', speed: 0.5, workers: 4, dataDir: 'd', logLevel: 'warn',
      startTime: Date.UTC(2024, 5, 1, 10), paused: true, metricsAuth: true,
      // For the messages that name them as they were given (src/scenario/fleet-flags.ts).
      fleetFlagsGivenAs: { agents: 'FLEETSIM_AGENTS', seed: 'FLEETSIM_SEED' }
    })
    expect(parse(['--agents', '3'], { FLEETSIM_SEED: '9' }).fleetFlagsGivenAs).toEqual({ seed: 'FLEETSIM_SEED' })
  })

  it('names each env twin FLEETSIM_ and the flag in upper case with underscores', () => {
    expect(SERVE_FLAGS.map((spec) => envName(spec.name))).toContain('FLEETSIM_APP_PATH')
    expect(envName('start-time')).toBe('FLEETSIM_START_TIME')
    expect(envName('password-file')).toBe('FLEETSIM_PASSWORD_FILE')
  })

  it('prefers a flag over its env twin', () => {
    expect(parse(['--agents', '10'], { FLEETSIM_AGENTS: '20' }).agents).toBe(10)
  })

  it('lets --no-<flag> switch off a boolean set in the environment', () => {
    expect(parse(['--no-http'], { FLEETSIM_HTTP: '1' }).http).toBe(false)
  })

  it('ignores env twins set to the empty string', () => {
    expect(parse([], { FLEETSIM_AGENTS: '' }).agents).toBeUndefined()
  })

  it('reads the password from the first line of --password-file', () => {
    expect(parse(['--password-file', 'secret.txt']).password).toBe('s3cret')
  })

  it('leaves a byte order mark out of the password (it was the password\'s first character)', () => {
    expect(parse(['--password-file', 'bom.txt']).password).toBe('s3cret')
  })

  it('prefers --password-file over FLEETSIM_PASSWORD', () => {
    expect(parse(['--password-file', 'secret.txt'], { FLEETSIM_PASSWORD: 'env' }).password).toBe('s3cret')
  })

  it('prefers --password over FLEETSIM_PASSWORD_FILE', () => {
    expect(parse(['--password', 'flag'], { FLEETSIM_PASSWORD_FILE: 'secret.txt' }).password).toBe('flag')
  })

  it('reads a date without a time as midnight UTC', () => {
    expect(parse(['--start-time', '2024-03-01']).startTime).toBe(Date.UTC(2024, 2, 1))
  })
})

describe('parseServeConfig messages', () => {
  it('rejects an unknown flag, naming it and the nearest flag', () => {
    const error = errorOf(['--agnets', '5'])
    expect(error.code).toBe('FLEETSIM_UNKNOWN_FLAG')
    expect(error.message).toBe('unknown flag --agnets; did you mean --agents? (see fleetsim serve --help)')
  })

  it('suggests --agents for --agent', () => {
    expect(errorOf(['--agent', '5']).message).toBe('unknown flag --agent; did you mean --agents? (see fleetsim serve --help)')
  })

  it('says only where to look when no flag is near the unknown one', () => {
    expect(errorOf(['--colour', 'red']).message).toBe('unknown flag --colour (see fleetsim serve --help)')
  })

  it('rejects a FLEETSIM_ variable that is no flag\'s, naming it and the nearest one, set or empty', () => {
    const error = errorOf([], { FLEETSIM_AGENT: '50' })
    expect(error.code).toBe('FLEETSIM_UNKNOWN_FLAG')
    expect(error.message).toBe(
      'unknown setting FLEETSIM_AGENT in the environment: did you mean FLEETSIM_AGENTS (--agents)? each flag\'s variable is FLEETSIM_ and its name in capitals (FLEETSIM_APP_PATH for --app-path) (see fleetsim serve --help); or unset FLEETSIM_AGENT'
    )
    expect(errorOf([], { FLEETSIM_JOURNALSIZE: '' }).message).toMatch(/^unknown setting FLEETSIM_JOURNALSIZE in the environment: did you mean FLEETSIM_JOURNAL_SIZE \(--journal-size\)\? /)
    expect(errorOf(['--agents', '5'], { FLEETSIM_COLOUR: 'red' }).message).toMatch(/^unknown setting FLEETSIM_COLOUR in the environment: each flag's variable/)
  })

  it('leaves alone the variables of the repository\'s own benches and tests, and others than FLEETSIM_', () => {
    expect(parse([], { FLEETSIM_BENCH_CPU_PROF: '/tmp/p', FLEETSIM_SOAK_ROLE: 'server', FLEETSIM_CHROMIUM: '/usr/bin/chromium', PATH: '/bin', FLEETSIMX: '1' }).agents).toBeUndefined()
  })

  it('rejects --no- in front of a flag that is not a boolean', () => {
    expect(errorOf(['--no-port']).message).toBe('unknown flag --no-port (see fleetsim serve --help)')
  })

  it('rejects a positional argument', () => {
    const error = errorOf(['extra'])
    expect(error.code).toBe('FLEETSIM_UNEXPECTED_ARGUMENT')
    expect(error.message).toBe('unexpected argument "extra"; fleetsim serve takes only flags (see fleetsim serve --help)')
  })

  it('rejects a flag given without its value', () => {
    const error = errorOf(['--port'])
    expect(error.code).toBe('FLEETSIM_MISSING_VALUE')
    expect(error.message).toBe('--port needs a value, e.g. --port <port>')
  })

  it('rejects a flag whose value would be the next flag', () => {
    expect(errorOf(['--port', '--http']).message).toBe('--port needs a value, e.g. --port <port>')
  })

  it('rejects a value attached to a boolean flag', () => {
    const error = errorOf(['--http=yes'])
    expect(error.code).toBe('FLEETSIM_UNEXPECTED_VALUE')
    expect(error.message).toBe('--http takes no value; use --http or --no-http')
  })

  it('rejects a boolean env twin that is not true or false, naming the variable', () => {
    const error = errorOf([], { FLEETSIM_PAUSED: 'maybe' })
    expect(error.code).toBe('FLEETSIM_INVALID_VALUE')
    expect(error.message).toBe('--paused must be true or false (or 1/0, yes/no, on/off), got "maybe" (from FLEETSIM_PAUSED)')
  })

  it('rejects a host with spaces or slashes', () => {
    expect(errorOf(['--host', 'http://x']).message).toBe('--host must be a host name or IP address, got "http://x"')
  })

  it('rejects brackets that are not around a whole IPv6 address ([::1 failed to listen on "[[::1]")', () => {
    expect(errorOf(['--host', '[::1']).message).toBe('--host must be a host name or IP address, got "[::1"')
    expect(errorOf(['--host', '::1]']).message).toBe('--host must be a host name or IP address, got "::1]"')
    expect(parse(['--host', '[::1]']).host).toBe('::1')
  })

  it('rejects a port that is not an integer from 0 to 65535', () => {
    expect(errorOf(['--port', '70000']).message).toBe('--port must be an integer from 0 to 65535, got "70000"')
  })

  it('rejects an application path that does not start with a slash', () => {
    expect(errorOf(['--app-path', 'manager/mvc']).message).toBe('--app-path must start with "/", got "manager/mvc"')
  })

  it('rejects an application path with a character a client or the router would not read literally', () => {
    const why = 'must be segments of letters, digits, "-", ".", "_" and "~" (none of them "." or "..") between single slashes, like /manager/mvc'
    for (const path of ['/manager?x', '/manager#x', '/man ager', '/man%41', '/a\\b', '/a//b', '/mgr::v', '/mgr:v', '/a/*', '/a/(b)', '/a/./b', '/a/..', '/é']) {
      expect(errorOf(['--app-path', path]).message).toBe(`--app-path ${why}, got "${path}"`)
    }
  })

  it('takes an application path of unreserved characters, a trailing slash dropped', () => {
    expect(parseServeConfig(['--app-path', '/Manager-2/mvc_v1.0~x/'], {}).appPath).toBe('/Manager-2/mvc_v1.0~x')
  })

  it('rejects "/" as the application path', () => {
    expect(errorOf(['--app-path', '/']).message).toBe('--app-path must name at least one path segment, like /manager/mvc, got "/"')
  })

  it('rejects an empty user', () => {
    expect(errorOf(['--user=']).message).toBe('--user must not be empty, got ""')
  })

  it('rejects an empty password', () => {
    expect(errorOf(['--password=']).message).toBe('--password must not be empty, got ""')
  })

  it('rejects credentials no client can send as a header: spaces or tabs at either end, control characters', () => {
    const why = 'not start or end with a space or tab (HTTP drops them around a header value, so no client could send it)'
    expect(errorOf(['--password', ' secret ']).message).toBe(`--password must ${why}, got " secret "`)
    expect(errorOf(['--user', 'ops\t']).message).toBe(`--user must ${why}, got "ops\t"`)
    expect(errorOf(['--admin-password', 'a\u0001b']).message).toContain('--admin-password must not hold a control character')
    expect(errorOf(['--password-file', 'spaced.txt']).message).toBe(`--password-file must name a file whose first line, the password, does ${why}, got "spaced.txt"`)
    // A password inside spaces is a password; a file's CRLF is its line end.
    expect(parse(['--password', 'two words']).password).toBe('two words')
    expect(parse(['--password-file', 'crlf.txt']).password).toBe('secret')
  })

  it('rejects --password together with --password-file', () => {
    const error = errorOf(['--password', 'a', '--password-file', 'secret.txt'])
    expect(error.code).toBe('FLEETSIM_CONFLICTING_FLAGS')
    expect(error.message).toBe('--password and --password-file cannot be used together; give one of them')
  })

  it('rejects FLEETSIM_PASSWORD together with FLEETSIM_PASSWORD_FILE', () => {
    expect(errorOf([], { FLEETSIM_PASSWORD: 'a', FLEETSIM_PASSWORD_FILE: 'secret.txt' }).message).toBe(
      'FLEETSIM_PASSWORD and FLEETSIM_PASSWORD_FILE cannot be used together; give one of them'
    )
  })

  it('rejects a password file that cannot be read', () => {
    expect(errorOf(['--password-file', 'missing.txt']).message).toBe('--password-file must name a readable file, got "missing.txt"')
  })

  it('rejects a password file whose first line is empty', () => {
    expect(errorOf([], { FLEETSIM_PASSWORD_FILE: 'empty.txt' }).message).toBe(
      '--password-file must name a file whose first line is the password, got "empty.txt" (from FLEETSIM_PASSWORD_FILE)'
    )
  })

  it('rejects agents that are not a positive integer', () => {
    expect(errorOf(['--agents', 'ten']).message).toBe('--agents must be a positive integer, got "ten"')
  })

  it('rejects more agents than the upper bound', () => {
    expect(errorOf(['--agents', '20000000']).message).toBe('--agents must be at most 10000000, got "20000000"')
    // Past a safe integer too: the bound is what it breaks, not "a positive integer".
    expect(errorOf(['--agents', '99999999999999999999']).message).toBe('--agents must be at most 10000000, got "99999999999999999999"')
  })

  it('rejects a seed outside the 32-bit range', () => {
    expect(errorOf(['--seed', '-1']).message).toBe('--seed must be an integer from 0 to 4294967295, got "-1"')
  })

  it('rejects a scenario file that does not exist', () => {
    expect(errorOf(['--scenario', 'nope.yaml']).message).toBe('--scenario must name an existing file, got "nope.yaml"; `fleetsim scenario list` lists the library')
  })

  it('rejects a speed that is not a positive number', () => {
    expect(errorOf(['--speed', '0']).message).toBe('--speed must be a positive number, got "0"')
    expect(errorOf(['--speed', '1e7']).message).toMatch(/^--speed must be at most 1000000 \(11\.6 days a second/)
  })

  it('rejects a worker count outside 1 to 1024', () => {
    expect(errorOf(['--workers', '0']).message).toBe('--workers must be an integer from 1 to 1024, got "0"')
  })

  it('rejects an empty data directory', () => {
    expect(errorOf([], { FLEETSIM_DATA_DIR: ' ' }).message).toBe('--data-dir must not be empty, got " " (from FLEETSIM_DATA_DIR)')
  })

  it('rejects an unknown log level, listing the allowed ones', () => {
    expect(errorOf(['--log-level', 'verbose']).message).toBe(
      '--log-level must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"'
    )
  })

  it('rejects a start time without a time zone', () => {
    expect(errorOf(['--start-time', '2024-01-01T00:00:00']).message).toBe(
      '--start-time must be an ISO 8601 date-time with a time zone, like 2026-01-01T00:00:00Z, got "2024-01-01T00:00:00"'
    )
  })

  it('rejects a scenario file named in the environment that does not exist, naming the variable', () => {
    expect(errorOf([], { FLEETSIM_SCENARIO: 'nope.yaml' }).message).toBe('--scenario must name an existing file, got "nope.yaml" (from FLEETSIM_SCENARIO); `fleetsim scenario list` lists the library')
  })


  it('rejects a start time on a day that does not exist', () => {
    expect(errorOf(['--start-time', '2024-02-30']).code).toBe('FLEETSIM_INVALID_VALUE')
  })

  it('rejects a start time from which the clock would soon pass year 9999, where dates lose their four-digit years', () => {
    expect(errorOf(['--start-time', '9999-12-31T23:59:58Z']).message).toBe(
      '--start-time must be before 9000-01-01T00:00:00Z: dates past year 9999 are written with a sign and six digits (+010000-…), which ISO 8601 and XML Schema clients do not read, got "9999-12-31T23:59:58Z"'
    )
    expect(parse(['--start-time', '8999-12-31T23:59:59Z']).startTime).toBe(Date.UTC(8999, 11, 31, 23, 59, 59))
  })

  it('rejects a start time before 1970, where an agent started before year 0 showed "-000001-12 27T16"', () => {
    expect(errorOf(['--start-time', '0000-01-01T00:00:00Z']).message).toBe(
      '--start-time must be at or after 1970-01-01T00:00:00Z: agents\' dates reach back before the start, and before year 0 they have no YYYY-MM-DD form, got "0000-01-01T00:00:00Z"'
    )
    expect(parse(['--start-time', '1970-01-01T00:00:00Z']).startTime).toBe(0)
  })
})

describe('parseServeArgs', () => {
  it('answers --help without checking the other flags', () => {
    expect(parseServeArgs(['--agents', 'ten', '--help'], {}, context)).toEqual({ help: true })
    expect(parseServeArgs(['-h'], {}, context)).toEqual({ help: true })
  })

  it('gives the same configuration as parseServeConfig otherwise', () => {
    expect(parseServeArgs(['--agents', '5'], {}, context)).toEqual({ help: false, config: parse(['--agents', '5']) })
  })

  it('makes parseServeConfig refuse --help, which asks for no configuration', () => {
    expect(errorOf(['--help']).message).toBe('--help asks for help, not a configuration; run fleetsim serve --help to read it')
  })
})

describe('the serve flag table', () => {
  it('gives every flag an env twin and a line of help', () => {
    for (const flag of SERVE_FLAGS) {
      expect(flag.env, flag.name).toBe(true)
      expect(flag.help.length, flag.name).toBeGreaterThan(10)
    }
  })

  it('names every flag once', () => {
    const names = SERVE_FLAGS.map((flag) => flag.name)
    expect(new Set(names).size).toBe(names.length)
  })
})
