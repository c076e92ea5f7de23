import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createFleet, type FleetEngine } from '../../src/fleet/fleet.js'
import { createManager, type Manager } from '../../src/manager/manager.js'
import { resumeSimulation, saveSimulation } from '../../src/state/simulation-state.js'
import { readStateFile } from '../../src/state/state-file.js'
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
const open: FleetEngine[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((engine) => engine.close()))
})

async function fleet(): Promise<FleetEngine> {
  const engine = await createFleet({ agents: 2000, seed: 41, workers: 2, paused: true, startTime: START, caFingerprint: ca.fingerprint })
  open.push(engine)
  return engine
}

async function savedFile(): Promise<{ path: string; engine: FleetEngine }> {
  const engine = await fleet()
  const manager = createManager(engine, ca)
  manager.templates.add('master', { name: 'base', config: { address: 'manager', port: 4041, caFingerprint: ca.fingerprint, isLogToFile: true, logLevel: 'INFO', mode: 'Connect', verbatim: '' } })
  manager.fields.create({ name: 'owner', type: 'STRING' })
  await engine.advance(3600)
  const path = join(await mkdtemp(join(tmpdir(), 'fleetsim-state-')), 'state.bin')
  await saveSimulation(path, engine, manager, ca)
  return { path, engine }
}

describe('the state file', () => {
  it('resumes a run that continues with the same digest as one never stopped', async () => {
    const { path, engine } = await savedFile()
    const resumed = await resumeSimulation(path, { ca, workers: 1 })
    open.push(resumed.engine)
    expect(await resumed.engine.digest()).toBe(await engine.digest())
    await engine.advance(5400)
    await resumed.engine.advance(5400)
    expect(await resumed.engine.digest()).toBe(await engine.digest())
    expect(resumed.manager.templates.get('base')?.kind).toBe('master')
    expect(resumed.manager.fields.get('owner')?.id).toBe(1)
  })

  it('resumes with the room of --max-added-agents, counting the agents added before the save, and never below them', async () => {
    const engine = await createFleet({ agents: 10, seed: 41, workers: 1, paused: true, startTime: START, caFingerprint: ca.fingerprint, headroom: 5 })
    open.push(engine)
    const agent = (name: string) => ({
      name,
      config: { address: 'manager', port: 4041, caFingerprint: ca.fingerprint, certFingerprint: `cert-${name}`, isLogToFile: true, logLevel: 'INFO', mode: 'Connect', verbatim: '' } as const
    })
    for (const name of ['a1', 'a2', 'a3']) await engine.addAgent(agent(name))
    const path = join(await mkdtemp(join(tmpdir(), 'fleetsim-state-')), 'state.bin')
    await saveSimulation(path, engine, createManager(engine, ca), ca)
    const roomy = await resumeSimulation(path, { ca, workers: 1, maxAddedAgents: 4 })
    open.push(roomy.engine)
    await roomy.engine.addAgent(agent('a4'))
    await expect(roomy.engine.addAgent(agent('a5'))).rejects.toMatchObject({ name: 'FleetFullError', added: 4, room: 4 })
    // Lower than what the saved run added: the saved agents are all there, and no more fit.
    const tight = await resumeSimulation(path, { ca, workers: 1, maxAddedAgents: 1 })
    open.push(tight.engine)
    expect(tight.engine.size()).toBe(13)
    await expect(tight.engine.addAgent(agent('a4'))).rejects.toMatchObject({ name: 'FleetFullError', added: 3, room: 3 })
  })

  it('refuses a file that is not a fleetsim state, and says so', async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'fleetsim-state-')), 'notes.txt')
    await writeFile(path, 'shopping list\n'.repeat(10))
    await expect(readStateFile(path)).rejects.toMatchObject({ code: 'E_STATE_NOT_FLEETSIM', message: expect.stringContaining('is not a fleetsim state file') })
  })

  it('refuses a damaged file, and leaves it as it was', async () => {
    const { path } = await savedFile()
    const bytes = await readFile(path)
    bytes[bytes.byteLength - 100] ^= 0xff
    await writeFile(path, bytes)
    await expect(readStateFile(path)).rejects.toMatchObject({ code: 'E_STATE_CORRUPT' })
    expect(await readFile(path)).toEqual(bytes)
  })

  it('refuses a file saved with another CA', async () => {
    const { path } = await savedFile()
    await expect(readStateFile(path, '00:11')).rejects.toMatchObject({ code: 'E_STATE_FOREIGN', message: expect.stringContaining('00:11') })
    // What to do first: the data directory it came from.
    await expect(readStateFile(path, '00:11')).rejects.toMatchObject({ message: expect.stringContaining('Start fleetsim with the --data-dir it was saved with') })
  })

  it('refuses a file of another format version', async () => {
    const { path } = await savedFile()
    const bytes = await readFile(path)
    bytes.writeUInt32BE(99, 'FLEETSIM-STATE\n'.length)
    await writeFile(path, bytes)
    await expect(readStateFile(path)).rejects.toMatchObject({ code: 'E_STATE_VERSION', message: expect.stringContaining('format 99') })
  })
})

describe('certificate ids in the state file', () => {
  /** An added agent with a certificate issued for it, as addagent makes one. */
  async function addWithIssuedCertificate(engine: FleetEngine, manager: Manager, name: string): Promise<void> {
    const certFingerprint = manager.certificates.issue(name)
    const config = { address: 'manager', port: 4041, caFingerprint: ca.fingerprint, certFingerprint, isLogToFile: true, logLevel: 'INFO', mode: 'Connect', verbatim: '' } as const
    manager.certificates.bind(certFingerprint, await engine.addAgent({ name, config }))
  }

  /** A fleet whose first run's added agent got a certificate, then a reset: the certificate's id moved out of the agents' ids. */
  async function resetAfterFirstRun(): Promise<{ engine: FleetEngine; manager: Manager }> {
    const engine = await createFleet({ agents: 10, seed: 41, workers: 1, paused: true, startTime: START, caFingerprint: ca.fingerprint, headroom: 5 })
    open.push(engine)
    const manager = createManager(engine, ca)
    await addWithIssuedCertificate(engine, manager, 'first-run')
    await engine.reset()
    return { engine, manager }
  }

  const listed = (manager: Manager) => [...manager.certificates.list()]
  const idOf = (manager: Manager, name: string) => listed(manager).find((cert) => cert.name === name)?.id
  const uniqueIds = (manager: Manager) => new Set(listed(manager).map((cert) => cert.id)).size === listed(manager).length

  it('keeps ids unique after a restart, when the resumed run has more room for added agents, and after a reset following it', async () => {
    const { engine, manager } = await resetAfterFirstRun()
    // The new run's first added agent has index 10 again, as the first run's had.
    await addWithIssuedCertificate(engine, manager, 'second-run')
    expect(idOf(manager, 'second-run')).toBe(12)
    expect(idOf(manager, 'first-run')).toBe(engine.capacity + 2)
    const path = join(await mkdtemp(join(tmpdir(), 'fleetsim-state-')), 'state.bin')
    await saveSimulation(path, engine, manager, ca)

    // More room than the saved run: added agents now reach the id the first run's certificate had.
    const resumed = await resumeSimulation(path, { ca, workers: 1, maxAddedAgents: 20 })
    open.push(resumed.engine)
    const movedBefore = idOf(manager, 'first-run') as number
    for (let k = 0; k < 10; k++) await addWithIssuedCertificate(resumed.engine, resumed.manager, `resumed-${k}`)
    expect(resumed.engine.capacity + 2).toBeGreaterThan(movedBefore)
    expect(idOf(resumed.manager, 'second-run')).toBe(12)
    expect(uniqueIds(resumed.manager)).toBe(true)

    // A reset after the restart moves the resumed run's certificates to ids never handed out before.
    await resumed.engine.reset()
    await addWithIssuedCertificate(resumed.engine, resumed.manager, 'after-restart')
    expect(uniqueIds(resumed.manager)).toBe(true)
    const kept = ['first-run', 'second-run', ...Array.from({ length: 10 }, (_, k) => `resumed-${k}`)].map((name) => idOf(resumed.manager, name) as number)
    expect(new Set(kept).size).toBe(kept.length)
    expect(Math.min(...kept)).toBeGreaterThanOrEqual(resumed.engine.capacity + 2)
  })

  it('does not hand out again, after a restart, an id it gave a certificate before', async () => {
    const { engine, manager } = await resetAfterFirstRun()
    const moved = idOf(manager, 'first-run')
    const path = join(await mkdtemp(join(tmpdir(), 'fleetsim-state-')), 'state.bin')
    await saveSimulation(path, engine, manager, ca)
    expect((await readStateFile(path)).manager.certificates).toMatchObject({ floor: engine.capacity + 2, nextId: (moved as number) + 1 })

    // The same room as before the save: ids stay as they were.
    const resumed = await resumeSimulation(path, { ca, workers: 1, maxAddedAgents: 5 })
    open.push(resumed.engine)
    expect(idOf(resumed.manager, 'first-run')).toBe(moved)
    await addWithIssuedCertificate(resumed.engine, resumed.manager, 'second-run')
    await resumed.engine.reset()
    expect(idOf(resumed.manager, 'first-run')).toBe(moved)
    expect(idOf(resumed.manager, 'second-run')).toBe((moved as number) + 1)
    expect(uniqueIds(resumed.manager)).toBe(true)
  })
})

describe('what the manager keeps by agent index, in the state file', () => {
  const config = (certFingerprint: string) => ({ address: 'manager', port: 4041, caFingerprint: ca.fingerprint, certFingerprint, isLogToFile: true, logLevel: 'INFO', mode: 'Connect', verbatim: '' }) as const
  const master = { address: 'manager', port: 4041, caFingerprint: ca.fingerprint, isLogToFile: true, logLevel: 'INFO', mode: 'Connect', verbatim: '' } as const

  async function small(): Promise<{ engine: FleetEngine; manager: Manager; path: string }> {
    const engine = await createFleet({ agents: 10, seed: 41, workers: 1, paused: true, startTime: START, caFingerprint: ca.fingerprint, headroom: 5 })
    open.push(engine)
    const manager = createManager(engine, ca)
    manager.templates.add('master', { name: 'base', config: master })
    manager.templates.add('sub', { name: 'extra', config: {} })
    return { engine, manager, path: join(await mkdtemp(join(tmpdir(), 'fleetsim-state-')), 'state.bin') }
  }

  /** Gives agent `index` the label env=prod and the templates base and extra, as the REST operations do. */
  function give(manager: Manager, index: number): void {
    manager.labels.set({ name: 'env', value: 'prod', agents: [index] })
    manager.templates.assign(index, manager.templates.get('base'), [manager.templates.get('extra')].filter((t) => t !== undefined))
  }

  const records = (manager: Manager, index: number) => ({ labels: manager.labels.labelsOf(index), templates: manager.templates.assignmentOf(index) })

  it('resumes the agents of the saved run with their labels and templates', async () => {
    const { engine, manager, path } = await small()
    const added = await engine.addAgent({ name: 'added', config: config('cert-added') })
    give(manager, 3)
    give(manager, added)
    await saveSimulation(path, engine, manager, ca)
    const resumed = await resumeSimulation(path, { ca, workers: 1 })
    open.push(resumed.engine)
    for (const index of [3, added]) expect(records(resumed.manager, index)).toEqual(records(manager, index))
    expect(records(resumed.manager, 3)).toMatchObject({ labels: [{ name: 'env', value: 'prod' }], templates: { master: 1, subs: [2] } })
  })

  it('drops, on resuming, what a state keeps for an index no agent has, so an agent added then does not get it', async () => {
    const { engine, manager, path } = await small()
    // As a fleetsim that kept them across a reset saved them: records of the run before's agent 10.
    give(manager, 10)
    give(manager, 4)
    await saveSimulation(path, engine, manager, ca)
    const resumed = await resumeSimulation(path, { ca, workers: 1 })
    open.push(resumed.engine)
    expect(await resumed.engine.addAgent({ name: 'added', config: config('cert-added') })).toBe(10)
    expect(records(resumed.manager, 10)).toEqual({ labels: [], templates: undefined })
    expect(records(resumed.manager, 4)).toMatchObject({ labels: [{ name: 'env', value: 'prod' }], templates: { master: 1, subs: [2] } })
    expect(resumed.manager.labels.get('env')?.agents).toEqual(new Map([[4, 'prod']]))
  })

  it('saves the fleet and the manager of one run when a reset comes during the save', async () => {
    const { engine, manager, path } = await small()
    const added = await engine.addAgent({ name: 'added', config: config('cert-added') })
    give(manager, added)
    await Promise.all([saveSimulation(path, engine, manager, ca), engine.reset()])
    const state = await readStateFile(path)
    // The save took its turn first: the run before the reset, its agent with its records.
    expect(state.engine.used).toBe(11)
    expect(state.manager.labels.labels).toMatchObject([{ name: 'env', agents: [[added, 'prod']] }])
    expect(state.manager.templates.assignments).toEqual([[added, { master: 1, subs: [2] }]])
    expect(records(manager, added)).toEqual({ labels: [], templates: undefined })
  })
})
