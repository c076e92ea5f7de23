import { describe, expect, it } from 'vitest'
import { coerce } from '../../src/http/coerce.js'

const schema = {
  type: 'object',
  properties: { list: { type: 'array', items: { type: 'integer' } }, flag: { type: 'boolean' }, n: { type: 'integer' } }
}

describe('text coercion', () => {
  it('splits comma-delimited lists and flattens repeated parameters', () => {
    expect(coerce({ list: ['1,2', '3'] }, schema, true)).toEqual({ list: [1, 2, 3] })
  })

  it('drops empty list items', () => {
    expect(coerce({ list: '1,,2,' }, schema, true)).toEqual({ list: [1, 2] })
  })

  it('converts true and false in any case', () => {
    expect(coerce({ flag: 'TRUE' }, schema, true)).toEqual({ flag: true })
  })

  it('leaves text that is not of the wanted type for the validator to report', () => {
    expect(coerce({ n: 'ten', flag: 'yes' }, schema, true)).toEqual({ n: 'ten', flag: 'yes' })
  })

  it('does not split commas in XML bodies', () => {
    expect(coerce({ list: '1,2' }, schema, false)).toEqual({ list: ['1,2'] })
  })
})
