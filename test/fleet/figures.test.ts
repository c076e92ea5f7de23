/**
 * An agent's figures (Fleet.figures): what its view shows but the text of its identity, as
 * numbers, for lists written without a view per item (src/http/item-bytes.ts). They must be the
 * view's to the bit, for every agent and state, and the identity's key must move whenever the
 * text of the identity may have.
 */
import { describe, expect, it } from 'vitest'
import { createFleet } from '../../src/fleet/fleet.js'
import { Figure, FIGURES, ModuleFigure, MODULE_FIGURES, Modules, MODULES_LENGTH, type AgentView, type ModuleView } from '../../src/fleet/fleet-api.js'
import { MODULE_STATUSES, ModuleStatus, stateName } from '../../src/protocol/states.js'
import { compileScenario } from '../../src/fleet/scenario-program.js'
import { parseScenario } from '../../src/scenario/index.js'
import { START } from '../http/helpers.js'
import { fleetOfEveryShape } from '../http/record-shapes.js'
import { closeAfterEach } from './helpers.js'

const open = closeAfterEach()

/** The view's figures at Figure's offsets (its identity's key aside, which a view does not show). */
function figuresOfView(view: AgentView): Record<string, number | string> {
  return {
    state: view.status,
    started: view.started,
    lastOnline: view.lastOnline,
    load: view.load,
    memUsage: view.memUsage,
    received: view.received,
    receivedToday: view.receivedToday,
    processing: view.processing,
    sent: view.sent,
    sentToday: view.sentToday
  }
}

function named(figures: Float64Array): Record<string, number | string> {
  return {
    state: stateName(figures[Figure.STATE]),
    started: figures[Figure.STARTED],
    lastOnline: figures[Figure.LAST_ONLINE],
    load: figures[Figure.LOAD],
    memUsage: figures[Figure.MEM_USAGE],
    received: figures[Figure.RECEIVED],
    receivedToday: figures[Figure.RECEIVED_TODAY],
    processing: figures[Figure.PROCESSING],
    sent: figures[Figure.SENT],
    sentToday: figures[Figure.SENT_TODAY]
  }
}

describe('Fleet.figures', () => {
  it("are the view's figures for every agent, and view() writes the same from its own read", async () => {
    const fleet = await fleetOfEveryShape(600, 11)
    open.push(fleet)
    const figures = new Float64Array(FIGURES)
    const fromView = new Float64Array(FIGURES)
    const states = new Set<string>()
    for (const index of fleet.indices()) {
      fleet.figures(index, figures)
      const view = fleet.view(index, false, true, fromView)
      expect(named(figures)).toEqual(figuresOfView(view))
      expect([...fromView]).toEqual([...figures])
      states.add(view.status)
    }
    expect(states.size).toBeGreaterThan(1)
  })

  it("with modules: each module's as the view shows it, from the same read, an output reporting the agent's flow", async () => {
    // Output modules crash, restart and fail again; half the agents go offline for hours, their
    // queues filling until they drop events (QUEUE_CAPACITY).
    const loaded = parseScenario(
      [
        'description: Modules crashing, and agents offline long enough to drop events.',
        'fleet: { agents: 300, seed: 12 }',
        'stages:',
        '  - { name: crash, select: { state: ONLINE }, pick: { fraction: 0.3 }, delay: { after: 30s, jitter: 1m }, next: { action: crash-module, module: out_tcp, for: 20m } }',
        'timeline:',
        '  - { name: long-outage, at: 1m, select: { state: [ONLINE, ERROR] }, pick: { fraction: 0.5 }, action: offline, for: 12h }'
      ].join('\n'),
      'modules.yaml'
    )
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues))
    const scenario = compileScenario({ ...loaded.scenario, fleet: { ...loaded.scenario.fleet, agents: 300, seed: 12 } }, START, { templateId: () => 0 })
    const fleet = await createFleet({ agents: 300, seed: 12, workers: 1, paused: true, startTime: START, caFingerprint: 'AA', scenario })
    open.push(fleet)
    await fleet.advance(6 * 3600)
    const figures = new Float64Array(FIGURES)
    const modules = new Float64Array(MODULES_LENGTH)
    const kinds = { inputs: 0, outputs: 0, notRunning: 0, dropping: 0 }
    for (const index of fleet.indices()) {
      fleet.figures(index, figures, modules)
      const view = fleet.view(index, true)
      expect(named(figures)).toEqual(figuresOfView(view))
      const shown: ModuleView[] = []
      for (let k = 0; k < modules[Modules.COUNT]; k++) {
        const at = Modules.FIRST + k * MODULE_FIGURES
        const status = modules[at + ModuleFigure.STATUS]
        shown.push({
          ...fleet.moduleHead(modules[Modules.SET], k),
          isRunning: status === ModuleStatus.RUNNING,
          evtRecvd: modules[at + ModuleFigure.EVT_RECVD],
          queuesize: modules[at + ModuleFigure.QUEUESIZE],
          evtFwd: modules[at + ModuleFigure.EVT_FWD],
          evtDrop: modules[at + ModuleFigure.EVT_DROP],
          status: MODULE_STATUSES[status],
          statusCode: status,
          id: k + 1
        })
      }
      expect(shown).toEqual(view.modules)
      for (const m of view.modules ?? []) {
        // An input counts what it received and forwards it all; an output shows the agent's flow.
        if (m.type === 'INPUT') {
          kinds.inputs++
          expect([m.evtFwd, m.queuesize, m.evtDrop]).toEqual([m.evtRecvd, 0, 0])
        } else {
          kinds.outputs++
          expect([m.evtRecvd, m.queuesize, m.evtFwd]).toEqual([view.received, view.processing, view.sent])
          if (m.evtDrop > 0) kinds.dropping++
        }
        if (!m.isRunning) kinds.notRunning++
      }
    }
    // A module's head is one object per module of the scenario.
    expect(fleet.moduleHead(modules[Modules.SET], 0)).toBe(fleet.moduleHead(modules[Modules.SET], 0))
    expect(kinds.inputs).toBeGreaterThan(0)
    expect(kinds.outputs).toBeGreaterThan(0)
    expect(kinds.notRunning).toBeGreaterThan(0)
    expect(kinds.dropping).toBeGreaterThan(0)
  })

  it("keep the identity's key while nothing of the identity moves, and move it with every change of names or configuration", async () => {
    const fleet = await createFleet({ agents: 20, seed: 4, workers: 1, paused: true, startTime: Date.UTC(2026, 1, 1), caFingerprint: 'AA' })
    open.push(fleet)
    const keyOf = (index: number) => {
      const figures = new Float64Array(FIGURES)
      fleet.figures(index, figures)
      return figures[Figure.IDENTITY]
    }
    const before = [0, 1, 2].map(keyOf)
    expect([0, 1, 2].map(keyOf)).toEqual(before)
    await fleet.advance(3600)
    // Agents of one OS and version on a fleet that holds still keep their key.
    expect([0, 1, 2].map(keyOf)).toEqual(before)
    await fleet.modifyAgent(1, 'renamed-one', fleet.config(1))
    const after = [0, 1, 2].map(keyOf)
    for (const k of [0, 1, 2]) expect(after[k]).not.toBe(before[k])
    // At one revision the key tells OS and version apart (a key is checked per agent: the agent's own text is kept with it).
    const all = [...fleet.indices()]
    const shown = (k: number) => `${fleet.view(k, false).os}/${fleet.view(k, false).version}`
    for (const k of all) expect(keyOf(k) === keyOf(0)).toBe(shown(k) === shown(0))
    expect(new Set(all.map(shown)).size).toBeGreaterThan(1)
  })
})
