/**
 * Reading a small file a user names (a password file, a PEM file), refusing what is no regular
 * file and what is larger than such a file can be. Why: `readFile` on a FIFO waits for a writer
 * for ever (`serve` hung at start and its signal handlers waited behind it), and on `/dev/zero`
 * fills the memory (7 GB in 18 s for `--password-file /dev/zero`).
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

/** A file refused before it was read: what it is, or how large; `code` as Node's errors carry one. */
export class UnreadableFileError extends Error {
  constructor(
    message: string,
    readonly code: 'ENOTREG' | 'ETOOBIG'
  ) {
    super(message)
    this.name = 'UnreadableFileError'
  }
}

// O_NONBLOCK: opening a FIFO for reading waits for a writer otherwise, before fstat can say what it is.
const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0)

function refusal(stats: Stats, maxBytes: number): UnreadableFileError | undefined {
  const kind = notAFile(stats)
  if (kind !== undefined) return new UnreadableFileError(`it is ${kind}, not a regular file`, 'ENOTREG')
  if (stats.size > maxBytes) return new UnreadableFileError(`it is ${stats.size} bytes, more than the ${maxBytes} such a file can hold`, 'ETOOBIG')
  return undefined
}

/**
 * The text of the regular file at `path`, at most `maxBytes` long; throws UnreadableFileError, or
 * Node's error (ENOENT, EACCES). Synchronous: flag parsing is, and the files are small.
 */
export function readRegularFileSync(path: string, maxBytes: number): string {
  const fd = openSync(path, READ_FLAGS)
  try {
    const problem = refusal(fstatSync(fd), maxBytes)
    if (problem !== undefined) throw problem
    // Read to one byte past the limit: a file that grew since its stat is refused, not read whole.
    const buffer = Buffer.alloc(maxBytes + 1)
    let length = 0
    for (;;) {
      const bytesRead = readSync(fd, buffer, length, buffer.length - length, null)
      if (bytesRead === 0) break
      length += bytesRead
      if (length > maxBytes) throw new UnreadableFileError(`it is more than the ${maxBytes} bytes such a file can hold`, 'ETOOBIG')
    }
    return buffer.toString('utf8', 0, length)
  } finally {
    closeSync(fd)
  }
}
