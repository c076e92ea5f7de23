/**
 * One server per state file. Two `fleetsim serve` given the same --state-file each saved over the
 * other's saves; now the first holds `<file>.lock`, a file made with O_CREAT | O_EXCL (`wx`)
 * holding its pid, host name and a random token, and removes it when it closes. A second server finds the lock
 * and refuses to start, naming the pid that holds it.
 *
 * A lock whose process is gone (kill -9, a crash, power loss) is stale: one naming a pid that no
 * longer runs on this host, or this process's own pid from an earlier life (containers reuse
 * pids) that this process does not hold, is removed and taken. Which locks this process holds is
 * told by a random token on the lock's third line, not by the path it was given: the same file
 * reached by another path (a symbolic link to its directory) named this pid and was taken as
 * stale, so two servers in one process held it. A lock made on another host
 * cannot be checked and is refused, saying how to remove it. Two servers that find the same
 * stale lock in the same instant may both take it: the check and the removal are not one step.
 */
import { randomUUID } from 'node:crypto'
import { readFileSync, rmSync } from 'node:fs'
import { open, readFile, rm, type FileHandle } from 'node:fs/promises'
import { hostname } from 'node:os'
import type { Logger } from 'pino'
import { isRunning } from '../lib/is-running.js'
import { stateFilePath } from './state-path.js'

/** The tokens of the locks this process holds, whatever path reached them: two servers in one process have one pid. */
const heldTokens = new Set<string>()

export interface StateLock {
  /** the lock file: `<state file>.lock` */
  readonly path: string
  /** removes the lock if it is still this server's; safe to call more than once */
  release(): Promise<void>
  /** the pid of the stale lock this server took over (its process was gone), for the log */
  readonly tookOverFrom?: number
}

/** The lock file of a state file. */
export function lockPathOf(stateFile: string): string {
  return `${stateFile}.lock`
}

interface Owner {
  readonly pid: number
  readonly host: string
  /** the random token of the server that took it (absent in a lock of an older fleetsim) */
  readonly token: string
}

/** Who the lock names: its owner, `gone` when it was removed meanwhile, undefined when it names no process. */
async function ownerOf(path: string): Promise<Owner | 'gone' | undefined> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'gone'
    throw error
  }
  const [pidText = '', host = '', token = ''] = text.split('\n')
  return /^[1-9]\d{0,9}$/.test(pidText) && host !== '' ? { pid: Number(pidText), host, token } : undefined
}

/** What a lock holds: pid, host and the taker's token, a line each. */
function lockText(token: string): string {
  return `${process.pid}\n${hostname()}\n${token}\n`
}

/** How the lock is made: Node's `open`; a test gives one whose handle meets a full disk. */
export interface LockFiles {
  open(path: string, flags: 'wx'): Promise<FileHandle>
}

/**
 * Takes the lock of `stateFile` for this server, or throws an Error saying who holds it and what
 * to do. The state file's directory must exist (prepareStateFile makes it).
 */
export async function lockStateFile(stateFile: string, files: LockFiles = { open }): Promise<StateLock> {
  // By the file it stands for: one file reached by two paths (a link to it or to its directory) has one lock.
  const path = lockPathOf(stateFilePath(stateFile))
  const inUse = `--state-file ${stateFile} is in use`
  const advice = `two servers saving to one file overwrite each other's saves; stop that one, or give this server another --state-file`
  // A few tries: again after removing a stale lock, or after one was removed meanwhile.
  const token = randomUUID()
  let staleFrom: number | undefined
  for (let attempt = 0; attempt < 3; attempt++) {
    let file: FileHandle | undefined
    try {
      file = await files.open(path, 'wx')
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code !== 'EEXIST') throw new Error(`cannot make the lock ${path} of --state-file ${stateFile}: ${(error as Error).message}`, { cause: error })
    }
    if (file !== undefined) {
      try {
        await file.writeFile(lockText(token))
      } catch (error) {
        // An empty lock (a full disk) named no process, and refused every start after.
        try {
          await file.close()
        } finally {
          await rm(path, { force: true })
        }
        throw new Error(`cannot write the lock ${path} of --state-file ${stateFile}: ${(error as Error).message}`, { cause: error })
      }
      await file.close()
      return taken(path, token, staleFrom)
    }
    const owner = await ownerOf(path).catch((error: unknown) => {
      // A directory in its place (EISDIR), a file this user may not read (EACCES): said as the lock it is.
      throw new Error(`cannot read ${path}, the lock of --state-file ${stateFile}: ${(error as Error).message}; it should be a file a fleetsim made, remove it if no fleetsim runs with this file`, { cause: error })
    })
    if (owner === 'gone') continue
    if (owner === undefined) {
      throw new Error(`${path}, the lock of --state-file ${stateFile}, names no process: another fleetsim may be taking it this moment; if none is, remove ${path} and start again`)
    }
    if (owner.host !== hostname()) {
      throw new Error(`${inUse} by fleetsim pid ${owner.pid} on host ${owner.host} (lock ${path}): ${advice}; if that server no longer runs, remove ${path}`)
    }
    if (owner.pid === process.pid && heldTokens.has(owner.token)) {
      throw new Error(`${inUse} by another server in this process (pid ${process.pid}, lock ${path}): ${advice}`)
    }
    // A running pid is taken for the fleetsim that wrote the lock; after a kill -9 and a restart
    // (a container's, often) another process may have that pid, hence the way out.
    if (owner.pid !== process.pid && isRunning(owner.pid)) {
      throw new Error(`${inUse} by another fleetsim (pid ${owner.pid}, lock ${path}): ${advice}; if pid ${owner.pid} is no fleetsim (its pid used again after that server was killed), remove ${path} and start again`)
    }
    // Stale: its process is gone, or it is this pid's from an earlier process.
    staleFrom = owner.pid
    await rm(path, { force: true })
  }
  throw new Error(`${inUse}: its lock ${path} kept coming back; another fleetsim is starting with it, stop one of them`)
}

function taken(path: string, token: string, tookOverFrom: number | undefined): StateLock {
  heldTokens.add(token)
  const mine = () => {
    try {
      return readFileSync(path, 'utf8') === lockText(token)
    } catch {
      return false
    }
  }
  // A process that ends without closing its server (an uncaught error) still leaves no lock.
  const onExit = () => {
    if (mine()) rmSync(path, { force: true })
  }
  process.on('exit', onExit)
  let released = false
  return {
    path,
    ...(tookOverFrom === undefined ? {} : { tookOverFrom }),
    release: async () => {
      if (released) return
      released = true
      process.off('exit', onExit)
      heldTokens.delete(token)
      if (mine()) await rm(path, { force: true })
    }
  }
}

/**
 * Releases `lock` at close, saying rather than throwing a failure to remove it: the next start
 * takes over a lock whose process is gone. Thrown, the failure was the last line at exit, and hid
 * a failed save before it.
 */
export async function releaseAtClose(lock: StateLock, logger: Pick<Logger, 'error'>): Promise<void> {
  try {
    await lock.release()
  } catch (error) {
    logger.error({ err: error, lock: lock.path }, 'could not remove the lock of --state-file; the next start takes it over')
  }
}
