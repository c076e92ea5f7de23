import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { LIBRARY_DIR, libraryFileNames, libraryHint } from '../../src/scenario/library-dir.js'
import { loadScenarioFile } from '../../src/scenario/load.js'

const FILES = ['flapping-network.yaml', 'steady-fleet.yaml', 'partial-reconnect.yml']
const inLibrary = (file: string) => relative(process.cwd(), join(LIBRARY_DIR, file))

describe('libraryHint', () => {
  it('names the library file of the name given, as `fleetsim scenario list` names them', () => {
    expect(libraryHint('steady-fleet', FILES)).toBe(`; the library has ${inLibrary('steady-fleet.yaml')}`)
    expect(libraryHint('elsewhere/partial-reconnect.yaml', FILES)).toBe(`; the library has ${inLibrary('partial-reconnect.yml')}`)
  })

  it('suggests the nearest library file for a misspelt one', () => {
    expect(libraryHint('scenarios/flaping-network.yaml', FILES)).toBe(`; did you mean ${inLibrary('flapping-network.yaml')}?`)
  })

  it('says where the list is when nothing is near', () => {
    expect(libraryHint('my-own.yaml', FILES)).toBe('; `fleetsim scenario list` lists the library')
  })

  it('reads the shipped library', () => {
    expect(libraryFileNames()).toContain('flapping-network.yaml')
    expect(libraryFileNames('/nonexistent')).toEqual([])
  })
})

describe('a scenario file that is not there', () => {
  it('is refused as no such file, with the hint', async () => {
    const result = await loadScenarioFile('flapping-network')
    expect(result.ok ? null : result.issues[0]).toMatchObject({ code: 'FSC_READ', message: `no such file; the library has ${inLibrary('flapping-network.yaml')}` })
  })
})
