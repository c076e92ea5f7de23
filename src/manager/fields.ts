/** Manager fields created with createfield: unique names, an id and a description id each. */
import { apiError } from '../protocol/errors.js'
import { checkFieldCount, checkFieldSizes, storedLimits, type StoredLimits } from './limits.js'

/** The spec shows STRING; the others are the simulator's choice (docs/protocol.md). */
export const FIELD_TYPES = ['STRING', 'INTEGER', 'BOOLEAN', 'DATETIME', 'IPADDR', 'BINARY'] as const
export type FieldType = (typeof FIELD_TYPES)[number]

export interface Field {
  name: string
  type: FieldType
  fieldDescription: { description: string; id: number }
  persist: boolean
  lookup: boolean
  id: number
}

export interface FieldInput {
  name: string
  type: FieldType
  description?: string
  persist?: boolean
  lookup?: boolean
}

/** The registry as plain data, for the state file. */
export interface FieldsSnapshot {
  nextId: number
  nextDescriptionId: number
  fields: Field[]
}

export class FieldRegistry {
  private readonly byName = new Map<string, Field>()
  private nextId = 1
  private nextDescriptionId = 1

  constructor(private readonly limits: StoredLimits = storedLimits()) {}

  snapshot(): FieldsSnapshot {
    return { nextId: this.nextId, nextDescriptionId: this.nextDescriptionId, fields: structuredClone([...this.byName.values()]) }
  }

  restore(saved: FieldsSnapshot): void {
    this.byName.clear()
    this.nextId = saved.nextId
    this.nextDescriptionId = saved.nextDescriptionId
    for (const field of structuredClone(saved.fields)) this.byName.set(field.name, field)
  }

  create(input: FieldInput): Field {
    checkFieldSizes(this.limits, input)
    if (this.byName.has(input.name)) {
      throw apiError('E_DUPLICATE_NAME', { name: input.name, owner: `manager field "${input.name}"` })
    }
    checkFieldCount(this.limits, this.byName.size)
    const field: Field = {
      name: input.name,
      type: input.type,
      fieldDescription: { description: input.description ?? '', id: this.nextDescriptionId++ },
      persist: input.persist ?? false,
      lookup: input.lookup ?? false,
      id: this.nextId++
    }
    this.byName.set(field.name, field)
    return field
  }

  get(name: string): Field | undefined {
    return this.byName.get(name)
  }
}
