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
  // Loaded only after the flags are valid: a typo is reported without loading the server stack.
  const { startServer } = await import('../server.js')
  const server = await startServer(config)
  const signal = await nextSignal(['SIGINT', 'SIGTERM'])
  server.logger.info({ signal }, 'shutting down')
  await server.close()
  return 0
}

/**
 * Resolves on the first of the signals. The listeners are removed at once, so a second Ctrl-C
 * during a slow shutdown gets Node's default behaviour and ends the process.
 */
function nextSignal(signals: NodeJS.Signals[]): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const handler = (signal: NodeJS.Signals) => {
      for (const name of signals) process.off(name, handler)
      resolve(signal)
    }
    for (const name of signals) process.on(name, handler)
  })
}
