/** `fleetsim serve`: parse the flags, start the server, close it gracefully on SIGINT, SIGTERM or SIGHUP. */
import { SERVE_FLAGS, parseServeArgs } from '../config.js'
import { formatFlags } from '../flags/help.js'
import { stdio, type Output } from './output.js'
import { tuneHeapForServing } from '../lib/serving-heap.js'

/** Flags of `fleetsim serve`: flag, env twin, default, meaning (also in `fleetsim --help`). */
export function formatServeFlags(): string {
  return formatFlags(SERVE_FLAGS, { env: true })
}

export function formatUsage(): string {
  return `Usage: fleetsim serve [flags]   (the default command: fleetsim [flags] is the same)

Runs the simulated agent manager until SIGINT, SIGTERM or SIGHUP.

Flags (a flag beats its env twin, which beats the default):
${formatServeFlags()}

Boolean flags take no value; --no-<flag> turns one off. Their env twins take true or false (or 1/0, yes/no, on/off).
`
}

export async function run(argv: string[], io: Output = stdio): Promise<number> {
  const parsed = parseServeArgs(argv, process.env)
  if (parsed.help) {
    io.out(formatUsage())
    return 0
  }
  const { config } = parsed
  // Listen for signals before starting: a client that reads the "listening" line and signals at
  // once must find the handler in place, and a signal during start-up stops the server as soon
  // as it is up.
  // SIGHUP too: a closed terminal or a dropped SSH session ends the server as SIGTERM does, state saved.
  const stop = watchSignals(['SIGINT', 'SIGTERM', 'SIGHUP'])
  try {
    // Loaded only after the flags are valid: a typo is reported without loading the server stack.
    const { startServer } = await import('../server.js')
    tuneHeapForServing()
    const server = await startServer(config)
    const signal = await stop.received
    // Bounded: idle and half-open connections go at once, requests in flight get --shutdown-grace
    // (src/http/connections.ts); then the state is saved.
    server.logger.info({ signal, graceMs: config.shutdownGrace }, 'shutting down')
    const { saveFailed } = await server.close()
    // Not 0: a supervisor or script should know the run since the last save is lost.
    return saveFailed ? 1 : 0
  } finally {
    stop.dispose()
  }
}

/**
 * Resolves `received` on the first of the signals. The listeners are removed at once, so a
 * second Ctrl-C during a slow shutdown gets Node's default behaviour and ends the process.
 */
function watchSignals(signals: NodeJS.Signals[]): { received: Promise<NodeJS.Signals>; dispose(): void } {
  let handler: (signal: NodeJS.Signals) => void = () => undefined
  const dispose = () => {
    for (const name of signals) process.off(name, handler)
  }
  const received = new Promise<NodeJS.Signals>((resolve) => {
    handler = (signal) => {
      dispose()
      resolve(signal)
    }
  })
  for (const name of signals) process.on(name, handler)
  return { received, dispose }
}
