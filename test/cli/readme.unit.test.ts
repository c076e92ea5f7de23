import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { SERVE_FLAGS } from '../../src/config.js'
import { envName, flagUsage } from '../../src/flags/flag.js'

const readme = readFileSync('README.md', 'utf8')
const rows = readme.split('\n').filter((line) => line.startsWith('| `--'))

describe('the README flag table', () => {
  it('has one row per serve flag with its env twin and default, in help order', () => {
    expect(rows.map((row) => /^\| `--([a-z-]+)/.exec(row)?.[1])).toEqual(SERVE_FLAGS.map((flag) => flag.name))
    for (const [index, flag] of SERVE_FLAGS.entries()) {
      const [, usage, env, defaultText] = rows[index].split('|').map((cell) => cell.trim().replace(/`/g, ''))
      expect(usage).toBe(flagUsage(flag))
      expect(env).toBe(envName(flag.name))
      expect(defaultText).toBe(flag.defaultText)
    }
  })

  it('shows the two set-up commands', () => {
    expect(readme).toContain('npm ci && npm start')
    expect(readme).toContain('npm ci && npm test')
  })
})
