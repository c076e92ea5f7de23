import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { SERVE_FLAGS, envName } from '../../src/config.js'

const readme = readFileSync('README.md', 'utf8')
const rows = readme.split('\n').filter((line) => line.startsWith('| `--'))

describe('the README flag table', () => {
  it('has one row per serve flag with its env twin and default, in help order', () => {
    expect(rows.map((row) => /^\| `--([a-z-]+)/.exec(row)?.[1])).toEqual(SERVE_FLAGS.map((spec) => spec.name))
    for (const [index, spec] of SERVE_FLAGS.entries()) {
      const [, flag, env, defaultText] = rows[index].split('|').map((cell) => cell.trim().replace(/`/g, ''))
      expect(flag).toBe(spec.type === 'boolean' ? `--${spec.name}` : `--${spec.name} ${spec.valueName}`)
      expect(env).toBe(envName(spec.name))
      expect(defaultText).toBe(spec.defaultText)
    }
  })

  it('shows the two set-up commands', () => {
    expect(readme).toContain('npm ci && npm start')
    expect(readme).toContain('npm ci && npm test')
  })
})
