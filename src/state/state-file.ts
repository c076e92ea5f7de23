/**
 * The state file: a whole simulation (fleet, manager, clock, scenario progress) saved to disk
 * so that `fleetsim serve --state-file PATH` continues where it stopped.
 *
 * Layout, chosen so a million agents save in one pass without converting their bytes:
 *   "FLEETSIM-STATE\n"            magic line
 *   uint32 BE                     format version
 *   uint32 BE                     length of the JSON header in bytes
 *   JSON header                   everything but the agents' bytes, plus the byte table
 *   agents' bytes                 each field's bytes, in the order of the table
 *   32 bytes                      SHA-256 of everything before it
 *
 * Writes go to a temporary file in the same directory (`.<name>.<pid>.tmp`), then rename over
 * the target, so a crash mid-write leaves the previous state intact; a write that fails removes
 * its temporary file, and start-up removes those a killed process left (removeStaleTemporaries).
 * A file that is not a fleetsim state, is of another version, or fails its checksum is refused
 * with a message saying so; it is never overwritten silently.
 *
 * The JSON header holds everything the manager stores, so within the stored-data limits
 * (src/manager/limits.ts) it may be larger than one JavaScript string: it is written and read
 * in pieces (large-json.ts), never built or decoded as one string. Its length field allows up
 * to 4 GiB - 1 bytes.
 */
import { constants as bufferConstants } from 'node:buffer'
import { createHash, type Hash } from 'node:crypto'
import { readdirSync, rmSync } from 'node:fs'
import { open, rename, rm, type FileHandle } from 'node:fs/promises'
import { stateFilePath } from './state-path.js'
import { basename, dirname, join } from 'node:path'
import { setImmediate as nextTurn } from 'node:timers/promises'
import type { EngineSnapshot } from '../fleet/fleet.js'
import { FIELDS, fieldBytes, type FieldName } from '../fleet/layout.js'
import { speedProblem } from '../fleet/clock.js'
import type { ManagerSnapshot } from '../manager/manager.js'
import { jsonPieces, parseJsonBytes } from './large-json.js'
import { isRunning } from '../lib/is-running.js'

const MAGIC = Buffer.from('FLEETSIM-STATE\n', 'latin1')
export const STATE_FORMAT_VERSION = 1

export interface SavedState {
  /** when the state was written (wall clock, ISO) */
  savedAt: string
  /** the CA the agents' configurations name: a state only fits the data directory it came from */
  caFingerprint: string
  engine: EngineSnapshot
  manager: ManagerSnapshot
}

export class StateFileError extends Error {
  constructor(
    readonly code: 'E_STATE_NOT_FLEETSIM' | 'E_STATE_VERSION' | 'E_STATE_CORRUPT' | 'E_STATE_FOREIGN' | 'E_STATE_UNREADABLE',
    message: string
  ) {
    super(message)
    this.name = 'StateFileError'
  }
}

interface Header {
  savedAt: string
  caFingerprint: string
  engine: Omit<EngineSnapshot, 'buffers'>
  manager: ManagerSnapshot
  buffers: Array<{ name: FieldName; bytes: number }>
}

const MAX_HEADER_BYTES = 0xffff_ffff
/** UTF-16 units of header text serialised at a time (at most 3 MiB of UTF-8). */
const HEADER_PIECE_LENGTH = 1 << 20
/** Bytes read at a time while checking a file. */
const READ_CHUNK_BYTES = 8 << 20

function uint32(value: number): Buffer {
  const b = Buffer.alloc(4)
  b.writeUInt32BE(value)
  return b
}

/** The temporary file a save of `path` by process `pid` writes before renaming it over `path`. */
export function temporaryPath(path: string, pid = process.pid): string {
  return join(dirname(path), `.${basename(path)}.${pid}.tmp`)
}

async function writeAll(file: FileHandle, bytes: Uint8Array): Promise<void> {
  for (let offset = 0; offset < bytes.byteLength; ) {
    const { bytesWritten } = await file.write(bytes, offset, bytes.byteLength - offset)
    offset += bytesWritten
  }
}

/**
 * Where a save of `path` goes: the file it stands for (state-path.ts), whose directory also holds
 * the temporary file. Renamed over a link, the save put a file in its place, and the file it named
 * was never written again.
 */
const savedPath = stateFilePath

export async function writeStateFile(given: string, state: SavedState): Promise<void> {
  const path = savedPath(given)
  const { buffers, ...engine } = state.engine
  const table = (Object.entries(buffers) as Array<[FieldName, Uint8Array]>).map(([name, bytes]) => ({ name, bytes: bytes.byteLength }))
  const header: Header = { savedAt: state.savedAt, caFingerprint: state.caFingerprint, engine, manager: state.manager, buffers: table }
  // The length comes before the header and the checksum covers both in order, so the header is
  // serialised twice: once to measure it, once to write it. Both passes read the same snapshot
  // (copies the engine and the manager made). Requests are served between pieces.
  let headerBytes = 0
  for (const piece of jsonPieces(header, HEADER_PIECE_LENGTH)) {
    headerBytes += Buffer.byteLength(piece, 'utf8')
    await nextTurn()
  }
  if (headerBytes > MAX_HEADER_BYTES) {
    throw new RangeError(`the state header would be ${headerBytes} bytes, more than the ${MAX_HEADER_BYTES} the state file format holds; lower the stored-data limits (docs/limits.md)`)
  }

  const temporary = temporaryPath(path)
  const hash = createHash('sha256')
  const put = async (file: FileHandle, bytes: Uint8Array): Promise<void> => {
    hash.update(bytes)
    await writeAll(file, bytes)
  }
  try {
    const file = await open(temporary, 'w', 0o600)
    try {
      await put(file, MAGIC)
      await put(file, uint32(STATE_FORMAT_VERSION))
      await put(file, uint32(headerBytes))
      let written = 0
      for (const piece of jsonPieces(header, HEADER_PIECE_LENGTH)) {
        const bytes = Buffer.from(piece, 'utf8')
        written += bytes.byteLength
        await put(file, bytes)
      }
      // A header that changed between the passes would not match its length field.
      if (written !== headerBytes) throw new Error(`the state changed while it was saved (header of ${written} bytes, measured ${headerBytes})`)
      for (const { name } of table) await put(file, buffers[name])
      await writeAll(file, hash.digest())
      // On disk before the rename, so the renamed file is never a partial one.
      await file.sync()
    } finally {
      await file.close()
    }
    await rename(temporary, path)
  } catch (error) {
    // A failed save leaves nothing behind: the previous state file is untouched.
    await rm(temporary, { force: true })
    throw error
  }
}

/**
 * Reads `length` bytes at `position` into a new buffer and adds them to `hash`, a piece at a time
 * as they are read: a hash takes at most 2 GiB in one update, and a header that the stored-data
 * limits allow may be larger (a save of 2.16 GB could not be read back).
 */
async function readHashed(file: FileHandle, position: number, length: number, hash: Hash): Promise<Buffer> {
  const bytes = Buffer.allocUnsafe(length)
  for (let offset = 0; offset < length; ) {
    const { bytesRead } = await file.read(bytes, offset, Math.min(READ_CHUNK_BYTES, length - offset), position + offset)
    if (bytesRead === 0) throw new Error('the file became shorter while it was read')
    hash.update(bytes.subarray(offset, offset + bytesRead))
    offset += bytesRead
  }
  return bytes
}

/**
 * Reads and checks a state file; `expectedCa` refuses a state made with another CA. The file
 * is read part by part (prefix, header, fields, checksum), so neither it nor its header has to
 * fit in one buffer or string.
 */
export async function readStateFile(path: string, expectedCa?: string): Promise<SavedState> {
  const fix = `Move it away or pass another --state-file; fleetsim will not overwrite it.`
  let file: FileHandle
  try {
    file = await open(path, 'r')
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message
    throw new StateFileError('E_STATE_UNREADABLE', `${path} cannot be read (${reason}): give fleetsim read access to it, or pass another --state-file.`)
  }
  const corrupt = (what: string): StateFileError => new StateFileError('E_STATE_CORRUPT', `${path} is damaged: ${what}. ${fix}`)
  try {
    const size = (await file.stat()).size
    const headerStart = MAGIC.byteLength + 8
    const hash = createHash('sha256')
    if (size < headerStart + 32) {
      // Cut short: a file that begins as a state file does (or holds less than its first line) was one.
      const start = Buffer.alloc(Math.min(size, MAGIC.byteLength))
      await file.read(start, 0, start.byteLength, 0)
      if (start.byteLength > 0 && start.equals(MAGIC.subarray(0, start.byteLength))) throw corrupt(`it is ${size} bytes, shorter than any state file (truncated?)`)
      throw new StateFileError('E_STATE_NOT_FLEETSIM', `${path} is not a fleetsim state file (it does not start with "FLEETSIM-STATE"). ${fix}`)
    }
    const prefix = await readHashed(file, 0, headerStart, hash)
    if (!prefix.subarray(0, MAGIC.byteLength).equals(MAGIC)) {
      throw new StateFileError('E_STATE_NOT_FLEETSIM', `${path} is not a fleetsim state file (it does not start with "FLEETSIM-STATE"). ${fix}`)
    }
    const version = prefix.readUInt32BE(MAGIC.byteLength)
    if (version !== STATE_FORMAT_VERSION) {
      throw new StateFileError('E_STATE_VERSION', `${path} is a fleetsim state file of format ${version}; this fleetsim reads format ${STATE_FORMAT_VERSION}. ${fix}`)
    }
    const headerLength = prefix.readUInt32BE(MAGIC.byteLength + 4)
    const fieldsLength = size - 32 - headerStart - headerLength
    if (fieldsLength < 0) throw corrupt('it is shorter than its header says (truncated?)')
    // No save writes a part this long, and no buffer holds one: refused before anything is read.
    if (fieldsLength > bufferConstants.MAX_LENGTH) throw corrupt(`its agents' part would be ${fieldsLength} bytes, more than a state file holds`)
    const headerBytes = await readHashed(file, headerStart, headerLength, hash)
    // The header is read and checked before the agents' part: a damaged file refused by its
    // header is not read whole first (a file of gigabytes of garbage was held in memory whole).
    let header: Header
    try {
      header = parseJsonBytes(headerBytes) as Header
    } catch (error) {
      throw corrupt(`its header is not valid JSON (${(error as Error).message})`)
    }
    const shapeProblem = headerProblem(header, fieldsLength)
    if (shapeProblem !== undefined) throw corrupt(shapeProblem)
    const fields = await readHashed(file, headerStart + headerLength, fieldsLength, hash)
    const checksum = Buffer.alloc(32)
    await file.read(checksum, 0, 32, size - 32)
    if (!hash.digest().equals(checksum)) throw corrupt('its checksum does not match its content (truncated or edited?)')
    if (expectedCa !== undefined && header.caFingerprint !== expectedCa) {
      throw new StateFileError(
        'E_STATE_FOREIGN',
        `${path} was saved with CA ${header.caFingerprint}, but this data directory's CA is ${expectedCa}: its agents would name a CA that does not exist. Start fleetsim with the --data-dir it was saved with (the one whose tls/ca.pem is that CA), or move the file away or pass another --state-file; fleetsim will not overwrite it.`
      )
    }
    const buffers = {} as Record<FieldName, Uint8Array>
    let offset = 0
    // The table adds up to the agents' part (headerProblem).
    for (const { name, bytes } of header.buffers) {
      buffers[name] = new Uint8Array(fields.buffer, fields.byteOffset + offset, bytes)
      offset += bytes
    }
    return { savedAt: header.savedAt, caFingerprint: header.caFingerprint, engine: { ...header.engine, buffers }, manager: header.manager }
  } finally {
    await file.close()
  }
}

const wholeNumber = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 0
const isObject = (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v)
/**
 * The fleet's values resume reads, each with what it must be: a speed of -1 was taken to a stack
 * trace, a scenario `{"x":1}` or names `null` to a TypeError, steppedTo 2^40 to a crash after the
 * server listened, and a seed "x" or paused "maybe" were resumed and saved back.
 */
const ENGINE_CHECKS: ReadonlyArray<readonly [string, (value: unknown) => boolean, string]> = [
  ['seed', wholeNumber, 'a whole number'],
  ['startTime', (v) => typeof v === 'number' && Number.isFinite(v) && Math.abs(v) <= 8.64e15, 'a time'],
  ['initialAgents', wholeNumber, 'a whole number'],
  // The fleet keeps its times as 32-bit whole seconds of its run (src/fleet/layout.ts).
  ['steppedTo', (v) => wholeNumber(v) && (v as number) < 2 ** 32, 'a whole number of seconds under 2^32'],
  ['clockMs', (v) => v === undefined || (typeof v === 'number' && Number.isFinite(v) && v >= 0), 'a number of milliseconds'],
  ['speed', (v) => typeof v === 'number' && speedProblem(v) === undefined, 'a speed the clock takes'],
  ['paused', (v) => typeof v === 'boolean', 'true or false'],
  ['lockout', (v) => typeof v === 'boolean', 'true or false'],
  ['lockoutEndsAt', (v) => typeof v === 'number' && Number.isFinite(v), 'a time'],
  ['scenario', (v) => v === null || (isObject(v) && isObject((v as { fleet?: unknown }).fleet)), 'a scenario'],
  ['names', Array.isArray, 'a list'],
  ['uuids', Array.isArray, 'a list'],
  ['configs', Array.isArray, 'a list'],
  ['stats', isObject, 'the fleet\'s totals']
]

/**
 * What is wrong with a header whose checksum holds (a file edited and hashed again by hand, or a
 * save by a fleetsim whose agents' fields differ under the same format version): the parts
 * resume reads, each field of the fleet once, as long as its agents take, and together the
 * agents' part. Undefined when it holds. Before, such a file crashed with a stack trace, or
 * started a fleet with fields left zeroed.
 */
function headerProblem(header: unknown, fieldsLength: number): string | undefined {
  const h = header as Partial<Header> | null
  if (h === null || typeof h !== 'object') return 'its header is not an object'
  if (typeof h.caFingerprint !== 'string' || typeof h.savedAt !== 'string') return 'its header lacks the CA or the time it was saved'
  if (h.engine === null || typeof h.engine !== 'object' || h.manager === null || typeof h.manager !== 'object') return 'its header lacks the fleet or the manager'
  const used = h.engine.used
  if (!Number.isSafeInteger(used) || used < 0) return `its fleet's agent count is ${JSON.stringify(used)}, not a whole number`
  const engineProblem = ENGINE_CHECKS.find(([key, holds]) => !holds((h.engine as unknown as Record<string, unknown>)[key]))
  if (engineProblem !== undefined) {
    const [key, , what] = engineProblem
    return `its fleet's ${key} is ${JSON.stringify((h.engine as unknown as Record<string, unknown>)[key]) ?? 'missing'}, not ${what}`
  }
  if (!Array.isArray(h.buffers)) return "its header lacks the table of the agents' fields"
  const seen = new Set<string>()
  let total = 0
  for (const entry of h.buffers as unknown[]) {
    const { name, bytes } = (entry ?? {}) as { name?: unknown; bytes?: unknown }
    const expected = typeof name === 'string' ? fieldBytes(name, used) : undefined
    if (expected === undefined) return `its field ${JSON.stringify(name)} is not one of the fleet's`
    if (seen.has(name as string)) return `its field "${String(name)}" is there twice`
    if (bytes !== expected) return `its field "${String(name)}" is ${JSON.stringify(bytes)} bytes, where ${used} agents take ${expected}`
    seen.add(name as string)
    total += expected
  }
  const missing = Object.keys(FIELDS).find((name) => !seen.has(name))
  if (missing !== undefined) return `its field "${missing}" is missing`
  if (total !== fieldsLength) return `its agents' part is ${fieldsLength} bytes, where its fields take ${total}`
  return undefined
}

/**
 * Removes the temporary files that saves of `path` left when their process was killed
 * mid-write (kill -9, a crash, power loss): `.<name>.<pid>.tmp` next to it whose process no
 * longer runs, or whose pid is this process's (an earlier process had it: containers reuse
 * pids). The temporary file of another running fleetsim saving to the same path is left alone.
 * Synchronous, for start-up: call it before this process's first save. Returns the paths removed.
 */
export function removeStaleTemporaries(given: string): string[] {
  const path = savedPath(given)
  const prefix = `.${basename(path)}.`
  let names: string[]
  try {
    names = readdirSync(dirname(path))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw error
  }
  const removed: string[] = []
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue
    const pidText = name.slice(prefix.length, -'.tmp'.length)
    if (!/^[1-9]\d{0,9}$/.test(pidText)) continue
    const pid = Number(pidText)
    if (pid !== process.pid && isRunning(pid)) continue
    const stale = join(dirname(path), name)
    rmSync(stale, { force: true })
    removed.push(stale)
  }
  return removed
}
