/**
 * Output directories checked before any work starts, so a run of minutes does not end in
 * `EEXIST: file already exists, mkdir '/etc/passwd'`.
 */
import { constants } from 'node:fs'
import { access, stat } from 'node:fs/promises'
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
    const code = (error as NodeJS.ErrnoException).code
    const why = code === 'EACCES' || code === 'EPERM' ? 'no permission to write there' : code === 'ENOTDIR' ? 'a part of the path is a file' : (error as Error).message
    throw new ConfigError('FLEETSIM_INVALID_VALUE', `--${flag} must name a directory fleetsim can write, got "${dir}" (${why})`)
  }
}
