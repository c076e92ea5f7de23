import { describe, expect, it } from 'vitest'
import { ApiError } from '../../src/protocol/errors.js'
import { FieldRegistry } from '../../src/manager/fields.js'
import { LabelRegistry } from '../../src/manager/labels.js'
import { checkAgentSizes, storedLimits, type StoredLimits } from '../../src/manager/limits.js'
import { TemplateRegistry, type MasterConfig } from '../../src/manager/templates.js'

const master: MasterConfig = { address: '10.0.0.1', port: 4041, caFingerprint: 'AA', isLogToFile: true, logLevel: 'INFO', mode: 'Connect', verbatim: '' }

/** The catalogue error `act` throws (it must throw one). */
function refusal(act: () => unknown): ApiError {
  try {
    act()
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError)
    return error as ApiError
  }
  throw new Error('expected a refusal')
}

const labels = (limits: Partial<StoredLimits>) => new LabelRegistry(storedLimits(limits), (index) => `web-${index}`)
const templates = (limits: Partial<StoredLimits>) => new TemplateRegistry(() => undefined, storedLimits(limits))
const fields = (limits: Partial<StoredLimits>) => new FieldRegistry(storedLimits(limits))

describe('custom label limits', () => {
  it('refuse a label name longer than --max-name-bytes', () => {
    const error = refusal(() => labels({ maxNameBytes: 8 }).set({ name: 'nine-char', value: 'x' }))
    expect(error).toMatchObject({ code: 'E_VALUE_TOO_LARGE', statusCode: 400 })
    expect(error.message).toBe(
      'The body field "name" (custom label name) has 9 bytes (UTF-8), more than the limit of 8: send a shorter one, or start fleetsim with a higher --max-name-bytes.'
    )
  })

  it('refuse a label value longer than --max-label-value-bytes, counting UTF-8 bytes', () => {
    const registry = labels({ maxLabelValueBytes: 5 })
    registry.set({ name: 'env', value: 'üü' })
    const error = refusal(() => registry.set({ name: 'env', value: 'üüü' }))
    expect(error.message).toBe(
      'The body field "value" (custom label value) has 6 bytes (UTF-8), more than the limit of 5: send a shorter one, or start fleetsim with a higher --max-label-value-bytes.'
    )
    expect(registry.get('env')?.value).toBe('üü')
  })

  it('refuse a new label past --max-labels, and still update or rename existing ones', () => {
    const registry = labels({ maxLabels: 2 })
    registry.set({ name: 'a', value: '1' })
    registry.set({ name: 'b', value: '2' })
    const error = refusal(() => registry.set({ name: 'c', value: '3' }))
    expect(error).toMatchObject({ code: 'E_LIMIT_REACHED', statusCode: 409 })
    expect(error.message).toBe(
      'The manager already has 2 custom labels, and --max-labels allows 2: remove unused ones with removecustomlabel, or start fleetsim with a higher --max-labels.'
    )
    registry.set({ name: 'a', value: 'updated' })
    registry.set({ name: 'renamed', value: '2', oldName: 'b' })
    expect([...registry.all()].map((label) => label.name)).toEqual(['a', 'renamed'])
  })

  it('refuse to assign a label to an agent that has --max-labels-per-agent, changing nothing', () => {
    const registry = labels({ maxLabelsPerAgent: 2 })
    registry.set({ name: 'a', value: '1', agents: [3] })
    registry.set({ name: 'b', value: '1', agents: [3] })
    const error = refusal(() => registry.set({ name: 'c', value: '1', agents: [1, 3] }))
    expect(error).toMatchObject({ code: 'E_LIMIT_REACHED', statusCode: 409 })
    expect(error.message).toBe(
      'Agent "web-3" already has 2 custom labels, and --max-labels-per-agent allows 2: remove one of its labels with removecustomlabel first, or start fleetsim with a higher --max-labels-per-agent.'
    )
    expect(registry.get('c')).toBeUndefined()
    expect(registry.labelsOf(1)).toEqual([])
  })

  it('count an agent once per label, and free its places when labels are removed or it is deleted', () => {
    const registry = labels({ maxLabelsPerAgent: 1 })
    registry.set({ name: 'a', value: '1', agents: [3, 3] })
    registry.set({ name: 'a', value: '2', agents: [3] })
    registry.remove(['a'], [3])
    registry.set({ name: 'b', value: '1', agents: [3] })
    registry.remove(['b'])
    registry.set({ name: 'c', value: '1', agents: [3] })
    registry.forgetAgent(3)
    registry.set({ name: 'd', value: '1', agents: [3] })
    expect(registry.labelsOf(3)).toEqual([{ name: 'd', value: '1' }])
    expect(() => registry.set({ name: 'e', value: '1', agents: [3] })).toThrow(expect.objectContaining({ code: 'E_LIMIT_REACHED' }))
  })

  it('restore a saved registry whole even past the limits, and then hold it to them', () => {
    const roomy = labels({})
    for (const name of ['a', 'b', 'c']) roomy.set({ name, value: 'v', agents: [1] })
    roomy.set({ name: 'd', value: 'v', agents: [2] })
    const tight = labels({ maxLabels: 4, maxLabelsPerAgent: 2 })
    tight.restore(roomy.snapshot())
    expect(tight.labelsOf(1)).toHaveLength(3)
    expect(refusal(() => tight.set({ name: 'e', value: 'v' })).message).toContain('already has 4 custom labels')
    expect(refusal(() => tight.set({ name: 'd', value: 'v', agents: [1] })).message).toContain('Agent "web-1" already has 3 custom labels')
    tight.set({ name: 'a', value: 'w', agents: [1] })
    expect(tight.labelsOf(1)[0]).toEqual({ name: 'a', value: 'w' })
  })
})

describe('template limits', () => {
  it('refuse a template name longer than --max-name-bytes', () => {
    const error = refusal(() => templates({ maxNameBytes: 4 }).add('sub', { name: 'longer', config: {} }))
    expect(error.message).toBe(
      'The body field "name" (template name) has 6 bytes (UTF-8), more than the limit of 4: send a shorter one, or start fleetsim with a higher --max-name-bytes.'
    )
  })

  it('refuse a template description longer than --max-text-bytes', () => {
    const error = refusal(() => templates({ maxTextBytes: 4 }).add('sub', { name: 's', description: 'about', config: {} }))
    expect(error.message).toBe(
      'The body field "description" (template description) has 5 bytes (UTF-8), more than the limit of 4: send a shorter one, or start fleetsim with a higher --max-text-bytes.'
    )
  })

  it('refuse a master template address longer than --max-text-bytes', () => {
    const error = refusal(() => templates({ maxTextBytes: 8 }).add('master', { name: 'm', config: { ...master, address: 'manager.example' } }))
    expect(error.message).toBe(
      'The body field "global-config.address" (template address) has 15 bytes (UTF-8), more than the limit of 8: send a shorter one, or start fleetsim with a higher --max-text-bytes.'
    )
  })

  it('refuse verbatim text longer than --max-verbatim-bytes, on add and on modify', () => {
    const registry = templates({ maxVerbatimBytes: 10 })
    const error = refusal(() => registry.add('sub', { name: 's', config: { verbatim: 'x'.repeat(11) } }))
    expect(error.message).toBe(
      'The body field "global-config.verbatim" (template verbatim text) has 11 bytes (UTF-8), more than the limit of 10: send a shorter one, or start fleetsim with a higher --max-verbatim-bytes.'
    )
    registry.add('master', { name: 'm', config: { ...master, verbatim: 'ok' } })
    expect(() => registry.modify('master', 'm', { name: 'm2', config: { ...master, verbatim: 'x'.repeat(11) } })).toThrow(
      expect.objectContaining({ code: 'E_VALUE_TOO_LARGE' })
    )
    expect(registry.get('m')?.config).toMatchObject({ verbatim: 'ok' })
  })

  it('refuse a template past --max-templates, master and sub together', () => {
    const registry = templates({ maxTemplates: 2 })
    registry.add('master', { name: 'm', config: master })
    registry.add('sub', { name: 's', config: {} })
    const error = refusal(() => registry.add('sub', { name: 't', config: {} }))
    expect(error).toMatchObject({ code: 'E_LIMIT_REACHED', statusCode: 409 })
    expect(error.message).toBe(
      'The manager already has 2 templates, and --max-templates allows 2: templates cannot be deleted: reuse one with modifymastertemplate or modifysubtemplate, or start fleetsim with a higher --max-templates.'
    )
    expect(registry.modify('sub', 's', { name: 't', config: {} }).name).toBe('t')
  })
})

describe('manager field limits', () => {
  it('refuse a field name longer than --max-name-bytes', () => {
    const error = refusal(() => fields({ maxNameBytes: 3 }).create({ name: 'host', type: 'STRING' }))
    expect(error.message).toBe(
      'The body field "name" (manager field name) has 4 bytes (UTF-8), more than the limit of 3: send a shorter one, or start fleetsim with a higher --max-name-bytes.'
    )
  })

  it('refuse a field description longer than --max-text-bytes', () => {
    const error = refusal(() => fields({ maxTextBytes: 3 }).create({ name: 'host', type: 'STRING', description: 'name' }))
    expect(error.message).toBe(
      'The body field "fieldDescription.description" (manager field description) has 4 bytes (UTF-8), more than the limit of 3: send a shorter one, or start fleetsim with a higher --max-text-bytes.'
    )
  })

  it('refuse a field past --max-fields', () => {
    const registry = fields({ maxFields: 1 })
    registry.create({ name: 'host', type: 'STRING' })
    const error = refusal(() => registry.create({ name: 'site', type: 'STRING' }))
    expect(error).toMatchObject({ code: 'E_LIMIT_REACHED', statusCode: 409 })
    expect(error.message).toBe('The manager already has 1 manager fields, and --max-fields allows 1: fields cannot be deleted: start fleetsim with a higher --max-fields.')
  })
})

describe('agent limits', () => {
  const config = { address: '192.0.2.1', verbatim: '' }

  it('refuse an agent name longer than --max-name-bytes', () => {
    const error = refusal(() => checkAgentSizes(storedLimits({ maxNameBytes: 5 }), { name: 'web-001', config }))
    expect(error.message).toBe(
      'The body field "name" (agent name) has 7 bytes (UTF-8), more than the limit of 5: send a shorter one, or start fleetsim with a higher --max-name-bytes.'
    )
  })

  it('refuse an agent address longer than --max-text-bytes', () => {
    const error = refusal(() => checkAgentSizes(storedLimits({ maxTextBytes: 5 }), { config }))
    expect(error.message).toBe(
      'The body field "global-config.address" (agent address) has 9 bytes (UTF-8), more than the limit of 5: send a shorter one, or start fleetsim with a higher --max-text-bytes.'
    )
  })

  it('refuse agent verbatim text longer than --max-verbatim-bytes', () => {
    const error = refusal(() => checkAgentSizes(storedLimits({ maxVerbatimBytes: 2 }), { name: 'a', config: { ...config, verbatim: '€' } }))
    expect(error.message).toBe(
      'The body field "global-config.verbatim" (agent verbatim text) has 3 bytes (UTF-8), more than the limit of 2: send a shorter one, or start fleetsim with a higher --max-verbatim-bytes.'
    )
  })

  it('accept text exactly at each limit', () => {
    expect(() => checkAgentSizes(storedLimits({ maxNameBytes: 3, maxTextBytes: 9, maxVerbatimBytes: 3 }), { name: 'abc', config: { address: '192.0.2.1', verbatim: '€' } })).not.toThrow()
  })
})
