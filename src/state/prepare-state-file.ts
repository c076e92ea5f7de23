/**
 * --state-file checked before the server starts (server.ts), by the file it stands for.
 */
import { stat } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import { ConfigError } from '../flags/config-error.js'
import { makeWritableDir, reason } from '../flags/output-dir.js'
import { notAFile } from '../lib/regular-file.js'
import { stateFilePath } from './state-path.js'

/**
 * Checks --state-file before the server starts: a directory, a named pipe, a socket or a device
 * is refused (a named pipe hung the start for good), and the directory of the file it stands for
 * (through links, as the lock and the saves go by it: state-path.ts) is made if missing, and a
 * file is made and removed in it. Without this a state file in a missing directory failed every
 * save, the one at exit too, after a run of hours; a link into a missing directory, or a
 * directory that takes no new files (`/proc`), failed on the lock with Node's bare message.
 */
export async function prepareStateFile(path: string): Promise<void> {
  const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
    // A loop of links reads as no file: the first save would have put a file in place of the link.
    if (error.code === 'ELOOP') throw new ConfigError('FLEETSIM_INVALID_VALUE', `--state-file must name a file, got "${path}", a symbolic link in a loop of links; point the link at a file, or name another`)
    return undefined
  })
  if (info?.isDirectory() === true) throw new ConfigError('FLEETSIM_INVALID_VALUE', `--state-file must name a file, got "${path}", which is a directory; name a file in it`)
  // A named pipe waited for a writer for ever at the first read, and serve could not be stopped.
  const kind = info === undefined ? undefined : notAFile(info)
  if (kind !== undefined) throw new ConfigError('FLEETSIM_INVALID_VALUE', `--state-file must name a regular file, got "${path}", which is ${kind}; name a file`)
  const file = stateFilePath(path)
  const through = file === resolve(path) ? '' : `, which stands for ${file}`
  const dir = dirname(file)
  try {
    await makeWritableDir(dir)
  } catch (error) {
    throw new ConfigError('FLEETSIM_INVALID_VALUE', `--state-file must name a file in a directory fleetsim can write, got "${path}"${through} (${reason(error)})`)
  }
}
