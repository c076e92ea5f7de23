/**
 * The record shapes the item writers are held to the generic path (item-writer.test.ts) and to
 * each other (item-bytes.test.ts) over: a fleet that shows them (fleetOfEveryShape), and any
 * agent view (AgentView) fast-check can think of (anyView): strings that need
 * escaping in JSON or XML, lone surrogates, negative, fractional, huge and non-finite numbers,
 * dates of any year a Date can hold, loads of whole hundredths (as the fleet's are), halfway
 * between two, and of any value, and up to four modules.
 */
import fc from 'fast-check'
import type { AgentView } from '../../src/fleet/fleet-api.js'
import { createFleet, type FleetEngine } from '../../src/fleet/fleet.js'
import { compileScenario } from '../../src/fleet/scenario-program.js'
import { loadScenarioFileOrThrow } from '../../src/scenario/index.js'
import { START } from './helpers.js'
import { AGENT_STATES, MODULE_STATUSES } from '../../src/protocol/states.js'

const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('', '"', '\\', '<&>\'"', '\u0000\u001f', '\ud800', 'the service'))
const integer = fc.oneof(fc.integer(), fc.double({ min: -1e9, max: 1e9, noNaN: true }), fc.maxSafeNat(), fc.constantFrom(1e15, 1e21, -0))

const moduleView = fc.record({
  moduleName: text,
  module: text,
  moduleType: integer,
  type: fc.constantFrom('INPUT', 'OUTPUT'),
  isRunning: fc.boolean(),
  evtRecvd: integer,
  queuesize: integer,
  evtFwd: integer,
  evtDrop: integer,
  status: fc.constantFrom(...MODULE_STATUSES),
  statusCode: fc.integer({ min: 0, max: 5 }),
  id: fc.integer({ min: 1, max: 50 })
})

export const anyView: fc.Arbitrary<AgentView> = fc.record(
  {
    index: fc.integer({ min: 0, max: 40 }),
    uuid: text,
    // Names are well-formed: a lone surrogate is refused when an agent is named (E_INVALID_NAME).
    name: text.filter((name) => !/\p{Cs}/u.test(name)),
    version: text,
    status: fc.constantFrom(...AGENT_STATES),
    os: text,
    address: text,
    service: text,
    // Mostly this century; now and then any time a Date can hold (years past 9999 and before 0 are written another way).
    started: fc.oneof({ arbitrary: fc.integer({ min: 0, max: 4e12 }), weight: 4 }, { arbitrary: fc.integer({ min: -8.64e15, max: 8.64e15 }), weight: 1 }),
    lastOnline: fc.oneof({ arbitrary: fc.integer({ min: 0, max: 4e12 }), weight: 4 }, { arbitrary: fc.integer({ min: -8.64e15, max: 8.64e15 }), weight: 1 }),
    // Any load; whole hundredths, as the fleet's are; and halfway between two, where rounding differs.
    load: fc.oneof(
      fc.double({ min: 0, max: 100, noNaN: true }),
      fc.integer({ min: 0, max: 100_000 }).map((hundredths) => hundredths / 100),
      fc.integer({ min: 0, max: 100_000 }).map((n) => (2 * n + 1) / 200)
    ),
    memUsage: fc.oneof(fc.integer({ min: 0 }), fc.double({ noNaN: true })),
    received: integer,
    receivedToday: integer,
    processing: integer,
    sent: integer,
    sentToday: integer,
    sysinfo: text,
    modules: fc.array(moduleView, { maxLength: 4 })
  },
  { requiredKeys: ['index', 'uuid', 'name', 'version', 'status', 'os', 'address', 'service', 'started', 'lastOnline', 'load', 'memUsage', 'received', 'receivedToday', 'processing', 'sent', 'sentToday', 'sysinfo'] }
)

/** A paused fleet six virtual hours into the steady scenario: modules of several kinds, and agents in every state it reaches. */
export async function fleetOfEveryShape(agents: number, seed: number): Promise<FleetEngine> {
  const loaded = await loadScenarioFileOrThrow('scenarios/steady-fleet.yaml')
  const scenario = compileScenario({ ...loaded, fleet: { ...loaded.fleet, agents, seed } }, START, { templateId: () => 0 })
  const fleet = await createFleet({ agents, seed, workers: 1, paused: true, startTime: START, caFingerprint: 'AA', scenario })
  await fleet.advance(6 * 3600)
  return fleet
}
