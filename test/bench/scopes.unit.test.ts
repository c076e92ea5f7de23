/** `npm run bench -- --scope …`: the scopes it takes, and what it says of one it does not. */
import { describe, expect, it } from 'vitest'
import { SCOPES, scopesOf } from '../../bench/run.js'

describe('--scope', () => {
  it('takes all, one scope, or scopes joined by commas', () => {
    expect(scopesOf('all')).toEqual([...SCOPES])
    expect(scopesOf('built, list')).toEqual(['built', 'list'])
  })

  it('names the scopes it takes, and the new name of a renamed one', () => {
    expect(() => scopesOf('bulit')).toThrow(/one or more of polled, built, list, multi, scale, gc joined by commas; got "bulit"$/)
    expect(() => scopesOf('agentinfo')).toThrow(/got "agentinfo" \(agentinfo is now called polled\)/)
  })
})
