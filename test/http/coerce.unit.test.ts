import { describe, expect, it } from 'vitest'
import { coerce } from '../../src/http/coerce.js'

const schema = {
  type: 'object',
  properties: { list: { type: 'array', items: { type: 'integer' } }, flag: { type: 'boolean' }, n: { type: 'integer' } }
}

describe('text coercion', () => {
  it('splits comma-delimited lists and flattens repeated parameters', () => {
    expect(coerce({ list: ['1,2', '3'] }, schema, 'query')).toEqual({ list: [1, 2, 3] })
  })

  it('drops empty list items', () => {
    expect(coerce({ list: '1,,2,' }, schema, 'query')).toEqual({ list: [1, 2] })
  })

  it('converts true and false in any case', () => {
    expect(coerce({ flag: 'TRUE' }, schema, 'query')).toEqual({ flag: true })
  })

  it('leaves text that is not of the wanted type for the validator to report', () => {
    expect(coerce({ n: 'ten', flag: 'yes' }, schema, 'query')).toEqual({ n: 'ten', flag: 'yes' })
  })

  it('does not split commas in XML bodies', () => {
    expect(coerce({ list: '1,2' }, schema, 'xml')).toEqual({ list: ['1,2'] })
  })

  it('reads an XML body\'s booleans and numbers without the spaces around them, and its empty elements as objects', () => {
    expect(coerce({ n: ' 4041\n', flag: '\ttrue ' }, schema, 'xml')).toEqual({ n: 4041, flag: true })
    expect(coerce('\n  ', schema, 'xml')).toEqual({})
    // A query's text is read as it is: the validator reports it.
    expect(coerce({ n: ' 4041' }, schema, 'query')).toEqual({ n: ' 4041' })
  })
})
