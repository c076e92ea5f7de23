/** `fleetsim serve`: parse the flags, start the server, close it gracefully on SIGINT or SIGTERM. */
import { parseServeConfig } from '../config.js'
import { formatHelp } from './help.js'
import { COMMANDS } from './index.js'

export async function run(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(formatHelp(COMMANDS))
    return 0
  }
  const config = parseServeConfig(argv, process.env)
  // Listen for signals before starting: a client that reads the "listening" line and signals at
  // once must find the handler in place, and a signal during start-up stops the server as soon
  // as it is up.
  const stop = watchSignals(['SIGINT', 'SIGTERM'])
  try {
    // Loaded only after the flags are valid: a typo is reported without loading the server stack.
    const { startServer } = await import('../server.js')
    const server = await startServer(config)
    const signal = await stop.received
    // Bounded: idle and half-open connections go at once, requests in flight get --shutdown-grace
    // (src/http/connections.ts); then the state is saved.
    server.logger.info({ signal, graceMs: config.shutdownGrace }, 'shutting down')
    await server.close()
    return 0
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
