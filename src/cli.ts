#!/usr/bin/env node
/** The `fleetsim` executable: runs a command and exits with its code. The only process.exit. */
import { main } from './commands/index.js'

const code = await main(process.argv.slice(2))
process.exit(code)
