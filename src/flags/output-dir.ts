/**
 * Output directories, and the state file's, checked before any work starts, so a run of minutes
 * does not end in `EEXIST: file already exists, mkdir '/etc/passwd'`.
 */
import { constants } from 'node:fs'
import { access, stat } from 'node:fs/promises'
import { dirname } from 'node:path'
import { makeDirs } from '../lib/make-dirs.js'
import { ConfigError } from './config-error.js'

/** Creates `dir` if missing and checks it is a writable directory; throws ConfigError naming `flag`. */
export async function prepareOutputDir(flag: string, dir: string): Promise<void> {
  const info = await stat(dir).catch(() => undefined)
  if (info !== undefined && !info.isDirectory()) {
    throw new ConfigError('FLEETSIM_INVALID_VALUE', `--${flag} must name a directory, got "${dir}", which is a file; choose a new or empty directory`)
  }
  try {
    if (info === undefined) await makeDirs(dir)
    await access(dir, constants.W_OK)
  } catch (error) {
    throw new ConfigError('FLEETSIM_INVALID_VALUE', `--${flag} must name a directory fleetsim can write, got "${dir}" (${reason(error)})`)
  }
}

/** Why a directory could not be made or written, in words where the code is a common one. */
function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code
  return code === 'EACCES' || code === 'EPERM' ? 'no permission to write there' : code === 'ENOTDIR' ? 'a part of the path is a file' : (error as Error).message
}

/**
 * Checks --state-file before the server starts: a directory is refused, and the file's
 * directory is made if missing and must be writable. Without this a state file in a missing
 * directory failed every save, the one at exit too, after a run of hours.
 */
export async function prepareStateFile(path: string): Promise<void> {
  const info = await stat(path).catch(() => undefined)
  if (info?.isDirectory() === true) throw new ConfigError('FLEETSIM_INVALID_VALUE', `--state-file must name a file, got "${path}", which is a directory; name a file in it`)
  const dir = dirname(path)
  try {
    await makeDirs(dir)
    await access(dir, constants.W_OK)
  } catch (error) {
    throw new ConfigError('FLEETSIM_INVALID_VALUE', `--state-file must name a file in a directory fleetsim can write, got "${path}" (${reason(error)})`)
  }
}
