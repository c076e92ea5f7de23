/**
 * Reading a small file a user names (a password file, a PEM file): a regular file or a pipe
 * (`--password-file <(pass show fleetsim)`, `/dev/stdin`), of at most the size such a file has.
 * Why: `readFile` on a named pipe nobody writes waited for a writer for ever (`serve` hung at
 * start, its signal handlers waiting behind it), and on `/dev/zero` read until the memory ran out
 * (`--password-file /dev/zero`). A pipe is opened without waiting for a writer and read to
 * its end (nothing, when nobody writes it); a device, a socket or a directory is refused. The
 * scenario loader reads its files so too (src/scenario/load.ts).
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs'

/** A PEM file holds a certificate or a key, or a chain of a few: a few kilobytes each. */
export const PEM_MAX_BYTES = 1024 * 1024
/** A password file's first line is the password; the rest is not read, but the file is bounded too. */
export const PASSWORD_FILE_MAX_BYTES = 64 * 1024

/** What `stats` is, in words, when it is no regular file; undefined for a regular file. */
export function notAFile(stats: Stats): string | undefined {
  if (stats.isFile()) return undefined
  if (stats.isDirectory()) return 'a directory'
  if (stats.isFIFO()) return 'a named pipe (FIFO)'
  if (stats.isSocket()) return 'a socket'
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device'
  return 'no regular file'
}

/** A file refused before it was read whole: what it is (`kind`), or how large (`size`, when its stat said). */
export class UnreadableFileError extends Error {
  constructor(
    message: string,
    readonly code: 'ENOTREG' | 'ETOOBIG',
    readonly detail: { readonly kind?: string; readonly size?: number } = {}
  ) {
    super(message)
    this.name = 'UnreadableFileError'
  }
}

/** How long a pipe's writer may take to write (a command in `<(…)` starting). */
const PIPE_WAIT_MS = 5000
const PAUSE = new Int32Array(new SharedArrayBuffer(4))

// O_NONBLOCK: opening a FIFO for reading waits for a writer otherwise, before fstat can say what it is.
const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0)

function refusal(stats: Stats, maxBytes: number, devices: boolean): UnreadableFileError | undefined {
  const kind = notAFile(stats)
  const readable = kind === undefined || stats.isFIFO() || (devices && (stats.isCharacterDevice() || stats.isBlockDevice()))
  if (!readable) return new UnreadableFileError(`it is ${kind}, not a regular file`, 'ENOTREG', { kind })
  if (stats.size > maxBytes) return new UnreadableFileError(`it is ${stats.size} bytes, more than the ${maxBytes} such a file can hold`, 'ETOOBIG', { size: stats.size })
  return undefined
}

/**
 * The bytes of the file at `path`, at most `maxBytes` of them: a regular file, or a pipe read to
 * its end; a device too with `devices` (read to one byte past the limit, as `/dev/zero` is
 * refused as too large). Throws UnreadableFileError, or Node's error (ENOENT, EACCES).
 * Synchronous: flag parsing is, and the files are small.
 */
export function readBoundedSync(path: string, maxBytes: number, options: { devices?: boolean } = {}): Buffer {
  const fd = openSync(path, READ_FLAGS)
  try {
    const problem = refusal(fstatSync(fd), maxBytes, options.devices === true)
    if (problem !== undefined) throw problem
    // Read to one byte past the limit: a file that grew since its stat, or a pipe or device with
    // no size, is refused, not read whole.
    const buffer = Buffer.alloc(maxBytes + 1)
    let length = 0
    const waitUntil = Date.now() + PIPE_WAIT_MS
    for (;;) {
      let bytesRead: number
      try {
        bytesRead = readSync(fd, buffer, length, buffer.length - length, null)
      } catch (error) {
        // A pipe whose writer has not written yet: wait a little, as its writer is starting (<(…)).
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN' || Date.now() > waitUntil) throw error
        Atomics.wait(PAUSE, 0, 0, 10)
        continue
      }
      if (bytesRead === 0) break
      length += bytesRead
      if (length > maxBytes) throw new UnreadableFileError(`it is more than the ${maxBytes} bytes such a file can hold`, 'ETOOBIG')
    }
    return buffer.subarray(0, length)
  } finally {
    closeSync(fd)
  }
}

/** readBoundedSync's bytes as UTF-8 text, no device read. */
export function readRegularFileSync(path: string, maxBytes: number): string {
  return readBoundedSync(path, maxBytes).toString('utf8')
}
