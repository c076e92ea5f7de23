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
 * Writes go to a temporary file in the same directory, then rename over the target, so a
 * crash mid-write leaves the previous state intact. A file that is not a fleetsim state, is
 * of another version, or fails its checksum is refused with a message saying so; it is never
 * overwritten silently.
 */
import { createHash } from 'node:crypto'
import { open, readFile, rename, rm } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import type { EngineSnapshot } from '../fleet/fleet.js'
import type { FieldName } from '../fleet/layout.js'
import type { ManagerSnapshot } from '../manager/manager.js'

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
    readonly code: 'E_STATE_NOT_FLEETSIM' | 'E_STATE_VERSION' | 'E_STATE_CORRUPT' | 'E_STATE_FOREIGN',
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

function uint32(value: number): Buffer {
  const b = Buffer.alloc(4)
  b.writeUInt32BE(value)
  return b
}

export async function writeStateFile(path: string, state: SavedState): Promise<void> {
  const { buffers, ...engine } = state.engine
  const table = (Object.entries(buffers) as Array<[FieldName, Uint8Array]>).map(([name, bytes]) => ({ name, bytes: bytes.byteLength }))
  const header: Header = { savedAt: state.savedAt, caFingerprint: state.caFingerprint, engine, manager: state.manager, buffers: table }
  const json = Buffer.from(JSON.stringify(header), 'utf8')
  const parts: Uint8Array[] = [MAGIC, uint32(STATE_FORMAT_VERSION), uint32(json.byteLength), json, ...table.map((t) => buffers[t.name])]
  const hash = createHash('sha256')
  for (const part of parts) hash.update(part)
  parts.push(hash.digest())

  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`)
  const file = await open(temporary, 'w', 0o600)
  try {
    for (const part of parts) await file.write(part)
    // On disk before the rename, so the renamed file is never a partial one.
    await file.sync()
  } finally {
    await file.close()
  }
  try {
    await rename(temporary, path)
  } catch (error) {
    await rm(temporary, { force: true })
    throw error
  }
}

/** Reads and checks a state file; `expectedCa` refuses a state made with another CA. */
export async function readStateFile(path: string, expectedCa?: string): Promise<SavedState> {
  const data = await readFile(path)
  const fix = `Move it away or pass another --state-file; fleetsim will not overwrite it.`
  if (data.byteLength < MAGIC.byteLength + 8 + 32 || !data.subarray(0, MAGIC.byteLength).equals(MAGIC)) {
    throw new StateFileError('E_STATE_NOT_FLEETSIM', `${path} is not a fleetsim state file (it does not start with "FLEETSIM-STATE"). ${fix}`)
  }
  const version = data.readUInt32BE(MAGIC.byteLength)
  if (version !== STATE_FORMAT_VERSION) {
    throw new StateFileError('E_STATE_VERSION', `${path} is a fleetsim state file of format ${version}; this fleetsim reads format ${STATE_FORMAT_VERSION}. ${fix}`)
  }
  const body = data.subarray(0, data.byteLength - 32)
  const checksum = createHash('sha256').update(body).digest()
  if (!checksum.equals(data.subarray(data.byteLength - 32))) {
    throw new StateFileError('E_STATE_CORRUPT', `${path} is damaged: its checksum does not match its content (truncated or edited?). ${fix}`)
  }
  const headerLength = data.readUInt32BE(MAGIC.byteLength + 4)
  const headerStart = MAGIC.byteLength + 8
  const header = JSON.parse(body.subarray(headerStart, headerStart + headerLength).toString('utf8')) as Header
  if (expectedCa !== undefined && header.caFingerprint !== expectedCa) {
    throw new StateFileError(
      'E_STATE_FOREIGN',
      `${path} was saved with CA ${header.caFingerprint}, but this data directory's CA is ${expectedCa}: its agents would name a CA that does not exist. ${fix}`
    )
  }
  const buffers = {} as Record<FieldName, Uint8Array>
  let offset = headerStart + headerLength
  for (const { name, bytes } of header.buffers) {
    if (offset + bytes > body.byteLength) throw new StateFileError('E_STATE_CORRUPT', `${path} is damaged: field "${name}" runs past the end of the file. ${fix}`)
    buffers[name] = new Uint8Array(body.buffer, body.byteOffset + offset, bytes)
    offset += bytes
  }
  return { savedAt: header.savedAt, caFingerprint: header.caFingerprint, engine: { ...header.engine, buffers }, manager: header.manager }
}
