import { describe, expect, it } from 'vitest'
import { SERVE_FLAGS_BY_KEY } from '../../src/config.js'
import { parserFor, refusalOf } from './helpers.js'
import { STORED_LIMIT_DEFAULTS, STORED_LIMIT_FLAGS, storedLimits } from '../../src/manager/limits.js'

const parse = parserFor()

const messageOf = (argv: string[], env: Record<string, string> = {}): string => refusalOf(parse, argv, env)

describe('stored-data limit flags', () => {
  it('default to the limits the manager uses without flags', () => {
    expect(storedLimits(parse([]))).toEqual(STORED_LIMIT_DEFAULTS)
  })

  it('are serve flags under the names the refusals tell the user to raise', () => {
    for (const [key, name] of Object.entries(STORED_LIMIT_FLAGS)) {
      expect(SERVE_FLAGS_BY_KEY[key as keyof typeof STORED_LIMIT_FLAGS].name, key).toBe(name)
    }
  })

  it('read every limit from its flag', () => {
    const config = parse([
      '--max-labels', '1', '--max-labels-per-agent', '2', '--max-label-value-bytes', '3', '--max-name-bytes', '4',
      '--max-text-bytes', '5', '--max-verbatim-bytes', '6', '--max-templates', '7', '--max-fields', '8'
    ])
    expect(storedLimits(config)).toEqual({
      maxLabels: 1, maxLabelsPerAgent: 2, maxLabelValueBytes: 3, maxNameBytes: 4, maxTextBytes: 5, maxVerbatimBytes: 6, maxTemplates: 7, maxFields: 8
    })
  })

  it('read every limit from its env twin', () => {
    const config = parse([], {
      FLEETSIM_MAX_LABELS: '11', FLEETSIM_MAX_LABELS_PER_AGENT: '12', FLEETSIM_MAX_LABEL_VALUE_BYTES: '13', FLEETSIM_MAX_NAME_BYTES: '14',
      FLEETSIM_MAX_TEXT_BYTES: '15', FLEETSIM_MAX_VERBATIM_BYTES: '16', FLEETSIM_MAX_TEMPLATES: '17', FLEETSIM_MAX_FIELDS: '18'
    })
    expect(storedLimits(config)).toEqual({
      maxLabels: 11, maxLabelsPerAgent: 12, maxLabelValueBytes: 13, maxNameBytes: 14, maxTextBytes: 15, maxVerbatimBytes: 16, maxTemplates: 17, maxFields: 18
    })
  })

  it('refuse a limit that is not a positive integer, naming the flag and the rule', () => {
    expect(messageOf(['--max-labels', '0'])).toBe('--max-labels must be an integer from 1 to 1073741824, got "0"')
    expect(messageOf(['--max-verbatim-bytes', '64k'])).toBe('--max-verbatim-bytes must be an integer from 1 to 1073741824, got "64k"')
    expect(messageOf([], { FLEETSIM_MAX_FIELDS: '-5' })).toBe('--max-fields must be an integer from 1 to 1073741824, got "-5" (from FLEETSIM_MAX_FIELDS)')
  })
  it('suggest the nearest limit flag for a mistyped one', () => {
    expect(messageOf(['--max-label', '5'])).toBe('unknown flag --max-label; did you mean --max-labels? (see fleetsim serve --help)')
  })
})
