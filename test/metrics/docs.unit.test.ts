import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { createRegistry } from '../../src/metrics/registry.js'
import { fakeSource } from './helpers.js'

interface Row {
  name: string
  type: string
  labels: string[]
}

const LINUX_ONLY = /\(Linux only\)/

const docs = readFileSync('docs/metrics.md', 'utf8')
const rows = docs
  .split('\n')
  .filter((line) => line.startsWith('| `fleetsim_'))
  .map((line) => {
    const [, name, type, labels, meaning] = line.split('|').map((cell) => cell.trim())
    return {
      name: name.replace(/`/g, ''),
      type,
      labels: labels === '' ? [] : labels.split(',').map((label) => label.trim().replace(/`/g, '')),
      linuxOnly: LINUX_ONLY.test(meaning)
    }
  })

function registered(): Row[] {
  const { registry } = createRegistry(fakeSource())
  return registry.getMetricsAsArray().map((metric) => {
    const { name, type, labelNames } = metric as unknown as { name: string; type: string; labelNames: string[] }
    return { name, type, labels: [...labelNames] }
  })
}

describe('docs/metrics.md', () => {
  it('documents every registered metric with its type and labels', () => {
    const documented = new Map(rows.map((row) => [row.name, { name: row.name, type: row.type, labels: row.labels }]))
    for (const metric of registered()) expect(documented.get(metric.name), metric.name).toEqual(metric)
  })

  it('documents nothing the registry does not hold', () => {
    const names = new Set(registered().map((metric) => metric.name))
    const missing = rows.filter((row) => !names.has(row.name) && !(row.linuxOnly && process.platform !== 'linux'))
    expect(missing.map((row) => row.name)).toEqual([])
  })

  it('documents each metric once', () => {
    const names = rows.map((row) => row.name)
    expect(names.filter((name, index) => names.indexOf(name) !== index)).toEqual([])
  })
})
