/**
 * Output directories and files, checked before any work starts,
 * so a run of minutes does not end in `EEXIST: file already exists, mkdir '/etc/passwd'`, and a
 * typo in `--junit` does not lose the conformance run it was to record.
 */
import { randomUUID } from 'node:crypto'
import { constants } from 'node:fs'
import { access, open, readlink, rm, stat } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { makeDirs } from '../lib/make-dirs.js'
import { ConfigError } from './config-error.js'

/**
 * Creates `dir` if missing and checks it is a writable directory, and that each of `files` (the
 * names the command writes in it) that is there already can be replaced; throws ConfigError
 * naming `flag`. With `earlierOutput` (whether the directory holds the command's own output of an
 * earlier run), a file of those names is replaced only in such a directory: `run --out .` in a
 * web project replaced its index.html without a word.
 */
export async function prepareOutputDir(flag: string, dir: string, files: readonly string[] = [], earlierOutput?: (dir: string) => Promise<boolean>): Promise<void> {
  const info = await stat(dir).catch(() => undefined)
  if (info !== undefined && !info.isDirectory()) {
    throw new ConfigError('FLEETSIM_INVALID_VALUE', `--${flag} must name a directory, got "${dir}", which is a file; choose a new or empty directory`)
  }
  try {
    await makeWritableDir(dir)
  } catch (error) {
    throw new ConfigError('FLEETSIM_INVALID_VALUE', `--${flag} must name a directory fleetsim can write, got "${dir}" (${reason(error)})`)
  }
  let ours: boolean | undefined
  for (const name of files) {
    const path = join(dir, name)
    const there = await stat(path).catch(() => undefined)
    if (there === undefined) continue
    if (earlierOutput !== undefined && there.isFile() && !(ours ??= await earlierOutput(dir))) {
      throw new ConfigError('FLEETSIM_INVALID_VALUE', `--${flag} "${dir}" holds ${name}, a file no earlier run wrote, which this run would replace; choose a new or empty directory, or remove it`)
    }
    if (there.isDirectory()) {
      throw new ConfigError('FLEETSIM_INVALID_VALUE', `--${flag} "${dir}" holds a directory ${name}, where fleetsim writes a file of that name; remove it or choose another directory`)
    }
    try {
      await access(path, constants.W_OK)
    } catch (error) {
      throw new ConfigError('FLEETSIM_INVALID_VALUE', `--${flag} "${dir}" holds a ${name} fleetsim cannot replace (${reason(error)}); remove it or choose another directory`)
    }
  }
}

/**
 * Refuses an output directory where one of `files` is `input`, the file the command reads (the
 * same file by device and inode, whatever path or link names it): the command would write its
 * output over its own input, which an earlier run's output in that directory cannot tell apart.
 */
export async function refuseInputAmongOutputs(flag: string, dir: string, files: readonly string[], input: string, what: string): Promise<void> {
  const read = await stat(input).catch(() => undefined)
  if (read === undefined) return
  for (const name of files) {
    const there = await stat(join(dir, name)).catch(() => undefined)
    if (there !== undefined && there.dev === read.dev && there.ino === read.ino) {
      throw new ConfigError('FLEETSIM_INVALID_VALUE', `--${flag} "${dir}" holds ${name}, which is the ${what} this run reads ("${input}"), and the run would write over it; choose another directory, or move the ${what} out of it`)
    }
  }
}

/**
 * Checks a file a command writes when it is done (`conformance --junit`), before the work: not
 * a directory; its directory made if missing and writable; the file, if it is there, writable.
 * Throws ConfigError naming `flag`.
 */
export async function prepareOutputFile(flag: string, path: string): Promise<void> {
  const info = await stat(path).catch(() => undefined)
  if (info?.isDirectory() === true) throw new ConfigError('FLEETSIM_INVALID_VALUE', `--${flag} must name a file, got "${path}", which is a directory; name a file in it`)
  // A device or a pipe takes the output as it comes (`--junit /dev/stdout`, `/dev/null`); a socket cannot be opened.
  if (info?.isSocket() === true) throw new ConfigError('FLEETSIM_INVALID_VALUE', `--${flag} must name a file, got "${path}", which is a socket; name a file`)
  // A link to no file yet is written through, into its target's directory, which must be there.
  const target = info === undefined ? await linkTarget(path) : undefined
  if (target !== undefined && (await stat(dirname(target)).catch(() => undefined))?.isDirectory() !== true) {
    throw new ConfigError('FLEETSIM_INVALID_VALUE', `--${flag} must name a file, got "${path}", a symbolic link to ${target}, whose directory is not there; point it at a file in a directory, or name another`)
  }
  try {
    if (info === undefined) {
      await makeWritableDir(dirname(target ?? path))
    } else {
      await access(path, constants.W_OK)
    }
  } catch (error) {
    throw new ConfigError('FLEETSIM_INVALID_VALUE', `--${flag} must name a file fleetsim can write, got "${path}" (${reason(error)})`)
  }
}

/** Why a directory could not be made or written, in words where the code is a common one. */
export function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code
  return code === 'EACCES' || code === 'EPERM' ? 'no permission to write there' : code === 'ENOTDIR' ? 'a part of the path is a file' : code === 'EROFS' ? 'a read-only file system' : (error as Error).message
}

/**
 * Makes `dir` if it is missing, then a file in it, removed at once: the surest test that files can
 * be made there, where access() says yes to root for a directory that takes none (`/proc`, `/sys`).
 * Throws what refused it (EACCES, EROFS, ENOTDIR; ENOENT for a file system that makes no files).
 */
export async function makeWritableDir(dir: string): Promise<void> {
  await makeDirs(dir)
  const probe = join(dir, `.fleetsim-write-check-${randomUUID()}`)
  try {
    await (await open(probe, 'wx')).close()
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    // ENOENT for a file in a directory that is there: a file system that makes no files (procfs, sysfs).
    throw code === 'ENOENT' || code === 'EROFS' ? Object.assign(new Error('no file can be made there'), { code }) : error
  }
  await rm(probe, { force: true })
}

/** Where the symbolic link at `path` points, resolved; undefined when `path` is no link. */
async function linkTarget(path: string): Promise<string | undefined> {
  const target = await readlink(path).catch(() => undefined)
  return target === undefined ? undefined : resolve(dirname(path), target)
}
