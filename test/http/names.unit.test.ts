import { describe, expect, it } from 'vitest'
import { coerce } from '../../src/http/coerce.js'
import { describeCharacter, findNameProblem, nameError } from '../../src/http/names.js'

const LIST = { type: 'array', items: { type: 'string' } }

describe('the naming rule', () => {
  it('refuses exactly the whitespace the list parser trims, at either end', () => {
    for (let codePoint = 0; codePoint <= 0xffff; codePoint++) {
      if (codePoint >= 0xd800 && codePoint <= 0xdfff) continue
      const c = String.fromCharCode(codePoint)
      const trimmed = (coerce(`a${c}`, LIST, 'query') as string[])[0] !== `a${c}`
      const rule = findNameProblem(`a${c}`)?.rule
      const expected =
        codePoint === 0x2c
          ? 'comma'
          : codePoint <= 0x1f || (codePoint >= 0x7f && codePoint <= 0x9f)
            ? 'control character'
            : codePoint === 0xfffe || codePoint === 0xffff
              ? 'noncharacter'
              : trimmed
                ? 'trailing whitespace'
                : undefined
      expect(rule, `U+${codePoint.toString(16)}`).toBe(expected)
    }
  })

  it('accepts every name the list parser gives back unchanged, as one item', () => {
    for (const name of ['café-01', 'web 01.lon_2', 'a  b', '東京', 'rocket-🚀', 'x\u00a0y', '"quoted"', 'semi;colon', 'a=b&c', '%41']) {
      const listed = coerce(name, LIST, 'query') as string[]
      expect(listed, name).toEqual([name])
      expect(findNameProblem(name), name).toBeUndefined()
    }
  })

  it('counts positions in characters, so a character outside the BMP counts once', () => {
    expect(findNameProblem('🚀🚀,x')).toEqual({ rule: 'comma', position: 3, codePoint: 0x2c })
  })

  it('finds a lone surrogate of either half, and keeps a valid pair', () => {
    expect(findNameProblem('a\udc00')).toEqual({ rule: 'lone surrogate', position: 2, codePoint: 0xdc00 })
    expect(findNameProblem('\ud83d')).toEqual({ rule: 'lone surrogate', position: 1, codePoint: 0xd83d })
    expect(findNameProblem('\ud83d\ude80')).toBeUndefined()
  })

  it('reports the leftmost problem', () => {
    expect(findNameProblem(' a,b ')?.rule).toBe('leading whitespace')
    expect(findNameProblem('a,b ')?.rule).toBe('comma')
    expect(findNameProblem('ab\t')?.rule).toBe('control character')
    expect(findNameProblem('   ')).toEqual({ rule: 'leading whitespace', position: 1, codePoint: 0x20 })
  })

  it('names characters with their code and a readable name', () => {
    expect(describeCharacter(0x2c)).toBe('a comma (U+002C)')
    expect(describeCharacter(0x1b)).toBe('an ESC character (U+001B)')
    expect(describeCharacter(0x01)).toBe('a control character (U+0001)')
    expect(describeCharacter(0x2003)).toBe('a typographic space (U+2003)')
    expect(describeCharacter(0xdbff)).toBe('a lone high surrogate (U+DBFF)')
  })

  it('shows a long name cut, with its length, so the error stays small', () => {
    const name = `${'x'.repeat(1_000_000)},`
    const message = nameError('agent', name)?.message ?? ''
    expect(message.length).toBeLessThan(400)
    expect(message).toContain(`"${'x'.repeat(64)}…" (1000001 UTF-16 code units) has a comma (U+002C) at position 1000001`)
  })
})
