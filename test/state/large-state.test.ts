import { Hash, createHash } from 'node:crypto'
import { mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createFleet, type FleetEngine } from '../../src/fleet/fleet.js'
import { STORED_LIMIT_DEFAULTS } from '../../src/manager/limits.js'
import { createManager, type Manager } from '../../src/manager/manager.js'
import { resumeSimulation, saveSimulation } from '../../src/state/simulation-state.js'
import { STATE_FORMAT_VERSION, readStateFile } from '../../src/state/state-file.js'
import type { CaInfo } from '../../src/tls/ca-info.js'

const ca: CaInfo = {
  fingerprint: 'AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01',
  subject: 'CN=test CA,O=fleetsim',
  issuer: 'CN=test CA,O=fleetsim',
  serialNumber: '01',
  notBefore: new Date('2026-01-01T00:00:00Z'),
  notAfter: new Date('2036-01-01T00:00:00Z'),
  sigAlgName: 'SHA256withECDSA',
  pem: ''
}
const START = Date.parse('2026-08-01T00:00:00Z')
/** The longest string the tests let JSON make: a stand-in for V8's limit of about 512 Mi units. */
const STRING_LIMIT = 1 << 20

let dir: string
const open: FleetEngine[] = []
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fleetsim-large-state-'))
})
afterEach(async () => {
  vi.restoreAllMocks()
  await Promise.all(open.splice(0).map((engine) => engine.close()))
  await rm(dir, { recursive: true, force: true })
})

async function fleet(agents: number): Promise<FleetEngine> {
  const engine = await createFleet({ agents, seed: 5, workers: 1, paused: true, startTime: START, caFingerprint: ca.fingerprint })
  open.push(engine)
  return engine
}

/** JSON.stringify and JSON.parse that fail, as V8 does past its string limit, past STRING_LIMIT. */
function limitJsonStrings(): void {
  const stringify = JSON.stringify
  const parse = JSON.parse
  vi.spyOn(JSON, 'stringify').mockImplementation((...args: Parameters<typeof JSON.stringify>) => {
    const text = stringify(...args)
    if (text !== undefined && text.length > STRING_LIMIT) throw new RangeError('Invalid string length')
    return text
  })
  vi.spyOn(JSON, 'parse').mockImplementation((...args: Parameters<typeof JSON.parse>) => {
    if (args[0].length > STRING_LIMIT) throw new RangeError('Invalid string length')
    return parse(...args) as unknown
  })
}

/** Every agent with the most labels of the largest value, and templates with the largest verbatim text. */
function fillToTheLimits(manager: Manager, agents: number, templates: number): void {
  const agentIndices = Array.from({ length: agents }, (_, i) => i)
  for (let l = 0; l < STORED_LIMIT_DEFAULTS.maxLabelsPerAgent; l++) {
    manager.labels.set({ name: `label-${l}`, value: `${l}`.padEnd(STORED_LIMIT_DEFAULTS.maxLabelValueBytes, 'v'), agents: agentIndices })
  }
  for (let t = 0; t < templates; t++) {
    manager.templates.add('sub', { name: `sub-${t}`, description: 'd'.repeat(STORED_LIMIT_DEFAULTS.maxTextBytes), config: { verbatim: `${t}`.padEnd(STORED_LIMIT_DEFAULTS.maxVerbatimBytes, 'x') } })
  }
}

describe('a state file with large stored data', () => {
  it('saves and resumes data at the default limits without making its header one string', async () => {
    const engine = await fleet(20)
    const manager = createManager(engine, ca)
    fillToTheLimits(manager, 20, 40)
    const path = join(dir, 'state.bin')
    limitJsonStrings()

    await saveSimulation(path, engine, manager, ca)
    // The header alone is several times the string limit the test set.
    const headerBytes = (await readFile(path)).readUInt32BE('FLEETSIM-STATE\n'.length + 4)
    expect(headerBytes).toBeGreaterThan(4 * STRING_LIMIT)

    const resumed = await resumeSimulation(path, { ca, workers: 1 })
    open.push(resumed.engine)
    expect(resumed.manager.snapshot()).toEqual(manager.snapshot())
    expect(resumed.manager.labels.labelsOf(19)).toHaveLength(STORED_LIMIT_DEFAULTS.maxLabelsPerAgent)
  })

  it('reads back a header larger than a hash takes in one update, which could be saved but never resumed', async () => {
    // A stand-in for the hash's limit of 2 GiB an update: a header of 2.16 GB (8,200 agents with
    // 64 labels of 4 KiB) was saved, and every start then failed with "data is too long".
    const HASH_LIMIT = 8 << 20
    const update = Hash.prototype.update
    vi.spyOn(Hash.prototype, 'update').mockImplementation(function (this: Hash, ...args: Parameters<Hash['update']>) {
      const data: unknown = args[0]
      if (ArrayBuffer.isView(data) && data.byteLength > HASH_LIMIT) throw new RangeError('data is too long')
      return update.apply(this, args)
    })
    const engine = await fleet(20)
    const manager = createManager(engine, ca)
    fillToTheLimits(manager, 20, 150)
    const path = join(dir, 'state.bin')
    await saveSimulation(path, engine, manager, ca)
    expect((await readFile(path)).readUInt32BE('FLEETSIM-STATE\n'.length + 4)).toBeGreaterThan(HASH_LIMIT)

    const resumed = await resumeSimulation(path, { ca, workers: 1 })
    open.push(resumed.engine)
    expect(resumed.manager.snapshot()).toEqual(manager.snapshot())
  })

  it('reads a state file whose header was written as one JSON text', async () => {
    // What a fleetsim before streamed saves wrote: the same format, built with one JSON.stringify.
    const engine = await fleet(50)
    const manager = createManager(engine, ca)
    manager.labels.set({ name: 'env', value: 'prod', agents: [1, 2] })
    const { buffers, ...rest } = await engine.snapshot()
    const table = Object.entries(buffers).map(([name, bytes]) => ({ name, bytes: bytes.byteLength }))
    const header = Buffer.from(JSON.stringify({ savedAt: 'then', caFingerprint: ca.fingerprint, engine: rest, manager: manager.snapshot(), buffers: table }))
    const uint32 = (value: number) => Buffer.from([value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255])
    const body = Buffer.concat([Buffer.from('FLEETSIM-STATE\n'), uint32(STATE_FORMAT_VERSION), uint32(header.byteLength), header, ...Object.values(buffers)])
    const path = join(dir, 'old.bin')
    await writeFile(path, Buffer.concat([body, createHash('sha256').update(body).digest()]))

    const state = await readStateFile(path, ca.fingerprint)
    expect(state.savedAt).toBe('then')
    expect(state.manager).toEqual(manager.snapshot())
    expect(state.engine.buffers).toEqual(buffers)
  })

  it('refuses a damaged file claiming a part larger than a buffer holds, before reading it (a stack trace)', async () => {
    // The first line, version 1, a header of 10 bytes, then 5 GiB of nothing (a sparse file).
    const path = join(dir, 'huge.bin')
    const uint32 = (value: number) => Buffer.from([value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255])
    await writeFile(path, Buffer.concat([Buffer.from('FLEETSIM-STATE\n'), uint32(STATE_FORMAT_VERSION), uint32(10)]))
    await truncate(path, 5 * 1024 ** 3)
    await expect(readStateFile(path)).rejects.toMatchObject({ code: 'E_STATE_CORRUPT', message: expect.stringContaining("its agents' part would be 5368709055 bytes, more than a state file holds") })
  })

  it('says a file cut short within its first bytes is truncated, not that it is no state file', async () => {
    const engine = await fleet(10)
    const path = join(dir, 'state.bin')
    await saveSimulation(path, engine, createManager(engine, ca), ca)
    const bytes = await readFile(path)
    for (const length of [50, 15, 5]) {
      await writeFile(path, bytes.subarray(0, length))
      await expect(readStateFile(path)).rejects.toMatchObject({ code: 'E_STATE_CORRUPT', message: expect.stringContaining(`it is ${length} bytes, shorter than any state file (truncated?)`) })
    }
    await writeFile(path, 'notes\n')
    await expect(readStateFile(path)).rejects.toMatchObject({ code: 'E_STATE_NOT_FLEETSIM' })
  })

  it('refuses a file whose header was edited and hashed again, naming what is wrong, where it crashed or resumed a wrong fleet', async () => {
    const engine = await fleet(20)
    const path = join(dir, 'state.bin')
    await saveSimulation(path, engine, createManager(engine, ca), ca)
    const bytes = await readFile(path)
    const start = 'FLEETSIM-STATE\n'.length + 8
    const headerLength = bytes.readUInt32BE(start - 4)
    const header = JSON.parse(bytes.subarray(start, start + headerLength).toString('utf8')) as { engine: { used: number }; buffers: Array<{ name: string; bytes: number }> }
    const fields = bytes.subarray(start + headerLength, bytes.byteLength - 32)
    const uint32 = (value: number) => Buffer.from([value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255])
    /** The file with `edit` made to its header, its length and checksum written again to match. */
    const edited = async (edit: (h: typeof header) => unknown) => {
      const copy = structuredClone(header)
      const text = Buffer.from(JSON.stringify(edit(copy) ?? copy))
      const body = Buffer.concat([bytes.subarray(0, start - 4), uint32(text.byteLength), text, fields])
      await writeFile(path, Buffer.concat([body, createHash('sha256').update(body).digest()]))
      return readStateFile(path)
    }
    const refused = (message: string) => expect.objectContaining({ code: 'E_STATE_CORRUPT', message: expect.stringContaining(message) })
    await expect(edited(() => ({ caFingerprint: ca.fingerprint }))).rejects.toEqual(refused('its header lacks the CA or the time it was saved'))
    await expect(edited((h) => void (h.engine.used = 5000))).rejects.toEqual(refused('where 5000 agents take'))
    await expect(edited((h) => void (h.buffers = h.buffers.filter((b) => b.name !== 'seq')))).rejects.toEqual(refused('its field "seq" is missing'))
    await expect(edited((h) => void h.buffers.push({ name: '__proto__', bytes: 0 }))).rejects.toEqual(refused('its field "__proto__" is not one of the fleet\'s'))
    // The fleet's values: a stack trace, a TypeError or a crash after listening before; or resumed and saved back.
    const engineEdit = (key: string, value: unknown) => edited((h) => void ((h.engine as unknown as Record<string, unknown>)[key] = value))
    await expect(engineEdit('speed', -1)).rejects.toEqual(refused("its fleet's speed is -1, not a speed the clock takes"))
    await expect(engineEdit('scenario', { x: 1 })).rejects.toEqual(refused("its fleet's scenario is {\"x\":1}, not a scenario"))
    await expect(engineEdit('names', null)).rejects.toEqual(refused("its fleet's names is null, not a list"))
    await expect(engineEdit('steppedTo', 2 ** 40)).rejects.toEqual(refused("its fleet's steppedTo is 1099511627776, not a whole number of seconds under 2^32"))
    await expect(engineEdit('seed', 'x')).rejects.toEqual(refused("its fleet's seed is \"x\", not a whole number"))
    await expect(engineEdit('paused', 'maybe')).rejects.toEqual(refused("its fleet's paused is \"maybe\", not true or false"))
    // As saved, it reads.
    await expect(edited(() => undefined)).resolves.toMatchObject({ caFingerprint: ca.fingerprint })
  })

  it('refuses a file by its header before reading its agents\' part, where gigabytes of garbage were read whole first', async () => {
    const path = join(dir, 'garbage.bin')
    const head = Buffer.alloc('FLEETSIM-STATE\n'.length + 8)
    head.write('FLEETSIM-STATE\n', 'latin1')
    head.writeUInt32BE(STATE_FORMAT_VERSION, 'FLEETSIM-STATE\n'.length)
    head.writeUInt32BE(16, 'FLEETSIM-STATE\n'.length + 4)
    await writeFile(path, Buffer.concat([head, Buffer.from('\u0000'.repeat(16))]))
    // A sparse 256 MiB after the first line: it takes no disk, and the answer comes from the header.
    await truncate(path, 256 * 1024 * 1024)
    await expect(readStateFile(path)).rejects.toEqual(expect.objectContaining({ code: 'E_STATE_CORRUPT', message: expect.stringContaining('its header is not valid JSON') }))
  })

  it('refuses a file whose header length runs past its end, as damaged', async () => {
    const engine = await fleet(10)
    const path = join(dir, 'state.bin')
    await saveSimulation(path, engine, createManager(engine, ca), ca)
    const bytes = await readFile(path)
    bytes.writeUInt32BE(bytes.byteLength, 'FLEETSIM-STATE\n'.length + 4)
    await writeFile(path, bytes)
    await expect(readStateFile(path)).rejects.toMatchObject({ code: 'E_STATE_CORRUPT', message: expect.stringContaining('shorter than its header says') })
  })
})
