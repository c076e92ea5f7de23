/**
 * An agent's figures (Fleet.figures): what its view shows but the text of its identity, as
 * numbers, for lists written without a view per item (src/http/item-bytes.ts). They must be the
 * view's to the bit, for every agent and state, and the identity's key must move whenever the
 * text of the identity may have.
 */
import { describe, expect, it } from 'vitest'
import { createFleet } from '../../src/fleet/fleet.js'
import { Figure, FIGURES, type AgentView } from '../../src/fleet/fleet-api.js'
import { stateName } from '../../src/protocol/states.js'
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
