import { describe, expect, it } from 'vitest'
import { LabelRegistry } from '../../src/manager/labels.js'
import { storedLimits } from '../../src/manager/limits.js'

describe('custom labels', () => {
  it('creates a label without agents as unassigned', () => {
    const labels = new LabelRegistry()
    const label = labels.set({ name: 'env', value: 'prod' })
    expect(label.agents.size).toBe(0)
    expect(labels.get('env')?.value).toBe('prod')
  })

  it('assigns a new label to the listed agents with its value', () => {
    const labels = new LabelRegistry()
    labels.set({ name: 'env', value: 'prod', agents: [1, 2] })
    expect(labels.labelsOf(2)).toEqual([{ name: 'env', value: 'prod' }])
  })

  it('updates the value only for the listed agents of an existing label', () => {
    const labels = new LabelRegistry()
    labels.set({ name: 'env', value: 'prod', agents: [1, 2] })
    labels.set({ name: 'env', value: 'test', agents: [2] })
    expect(labels.labelsOf(1)).toEqual([{ name: 'env', value: 'prod' }])
    expect(labels.labelsOf(2)).toEqual([{ name: 'env', value: 'test' }])
  })

  it('updates the value for every assigned agent when no agents are listed', () => {
    const labels = new LabelRegistry()
    labels.set({ name: 'env', value: 'prod', agents: [1, 2] })
    labels.set({ name: 'env', value: 'dev' })
    expect([labels.labelsOf(1)[0].value, labels.labelsOf(2)[0].value, labels.get('env')?.value]).toEqual(['dev', 'dev', 'dev'])
  })

  it('renames a label given by oldName and keeps its agents', () => {
    const labels = new LabelRegistry()
    labels.set({ name: 'env', value: 'prod', agents: [1] })
    labels.set({ name: 'stage', value: 'prod', oldName: 'env' })
    expect(labels.get('env')).toBeUndefined()
    expect(labels.labelsOf(1)).toEqual([{ name: 'stage', value: 'prod' }])
  })

  it('refuses to rename an unknown label', () => {
    expect(() => new LabelRegistry().set({ name: 'a', value: 'b', oldName: 'missing' })).toThrow(expect.objectContaining({ code: 'E_UNKNOWN_LABEL' }))
  })

  it('refuses to rename onto a name that is taken', () => {
    const labels = new LabelRegistry()
    labels.set({ name: 'a', value: '1' })
    labels.set({ name: 'b', value: '2' })
    expect(() => labels.set({ name: 'b', value: '1', oldName: 'a' })).toThrow(expect.objectContaining({ code: 'E_DUPLICATE_NAME' }))
  })

  it('unassigns a label from listed agents and keeps it while others remain', () => {
    const labels = new LabelRegistry()
    labels.set({ name: 'env', value: 'prod', agents: [1, 2] })
    expect(labels.remove(['env'], [1])).toEqual({ unassigned: ['env'], removed: [] })
    expect(labels.get('env')?.agents.size).toBe(1)
  })

  it('removes a label that is assigned to no agent afterwards', () => {
    const labels = new LabelRegistry()
    labels.set({ name: 'env', value: 'prod', agents: [1] })
    expect(labels.remove(['env'], [1])).toEqual({ unassigned: [], removed: ['env'] })
    expect(labels.get('env')).toBeUndefined()
  })

  it('removes a label everywhere when no agents are listed', () => {
    const labels = new LabelRegistry()
    labels.set({ name: 'env', value: 'prod', agents: [1, 2] })
    labels.remove(['env'])
    expect(labels.get('env')).toBeUndefined()
  })

  it('changes nothing when one of the labels to remove is unknown', () => {
    const labels = new LabelRegistry()
    labels.set({ name: 'env', value: 'prod' })
    expect(() => labels.remove(['env', 'nope'])).toThrow(expect.objectContaining({ code: 'E_UNKNOWN_LABEL' }))
    expect(labels.get('env')).toBeDefined()
  })

  it('forgets a deleted agent in every label', () => {
    const labels = new LabelRegistry()
    labels.set({ name: 'a', value: '1', agents: [5] })
    labels.set({ name: 'b', value: '2', agents: [5, 6] })
    labels.forgetAgent(5)
    expect(labels.labelsOf(5)).toEqual([])
  })

  it('unassigns the agents retainAgents does not keep, keeping every label and the room of those it keeps', () => {
    const labels = new LabelRegistry(storedLimits({ maxLabelsPerAgent: 1 }))
    labels.set({ name: 'a', value: '1', agents: [5] })
    labels.set({ name: 'b', value: '2', agents: [6, 7] })
    labels.retainAgents((index) => index === 7)
    expect([5, 6, 7].map((index) => labels.labelsOf(index))).toEqual([[], [], [{ name: 'b', value: '2' }]])
    expect([...labels.all()].map((label) => [label.name, [...label.agents.keys()]])).toEqual([
      ['a', []],
      ['b', [7]]
    ])
    // --max-labels-per-agent counts what each agent has now: 5 has room again, 7 has none.
    labels.set({ name: 'a', value: '1', agents: [5] })
    expect(() => labels.set({ name: 'a', value: '1', agents: [7] })).toThrow(expect.objectContaining({ code: 'E_LIMIT_REACHED' }))
  })
})
