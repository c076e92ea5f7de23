import { describe, expect, it } from 'vitest'
import { FieldRegistry } from '../../src/manager/fields.js'

describe('manager fields', () => {
  it('assigns a field id and a description id', () => {
    const fields = new FieldRegistry()
    const field = fields.create({ name: 'host', type: 'STRING', description: 'the host', persist: true })
    expect(field).toEqual({ name: 'host', type: 'STRING', fieldDescription: { description: 'the host', id: 1 }, persist: true, lookup: false, id: 1 })
  })

  it('refuses a second field with the same name', () => {
    const fields = new FieldRegistry()
    fields.create({ name: 'host', type: 'STRING' })
    expect(() => fields.create({ name: 'host', type: 'INTEGER' })).toThrow(expect.objectContaining({ code: 'E_DUPLICATE_NAME' }))
  })
})
