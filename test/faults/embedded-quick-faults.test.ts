/** startFleetsim's `latency`, `errorRate` and `faultOperations`: the quick fault flags for an embedding test suite. */
import { afterEach, describe, expect, it } from 'vitest'
import { startFleetsim, type RunningFleetsim } from '../../src/embed.js'
import { ConfigError } from '../../src/config.js'

let sim: RunningFleetsim | undefined
afterEach(async () => {
  await sim?.close()
  sim = undefined
})

describe('startFleetsim with quick fault options', () => {
  it('serves the options as fault rules on the operations named', async () => {
    sim = await startFleetsim({ http: true, agents: 5, latency: '1ms', errorRate: '100%', faultOperations: ['appinfo'] })
    const headers = { ...sim.headers, accept: 'application/json' }
    const faulted = await fetch(`${sim.url}/appinfo`, { headers })
    expect(faulted.status).toBe(500)
    expect(await faulted.json()).toMatchObject({ errors: [{ code: 'E_FAULT_INJECTED' }] })
    expect((await fetch(`${sim.url}/agentmanager`, { headers })).status).toBe(200)
    const listed = (await (await fetch(`${sim.origin}/__admin/faults`, { headers: sim.headers })).json()) as { rules: { name: string; operations: string[] }[] }
    expect(listed.rules.map(({ name, operations }) => ({ name, operations }))).toEqual([
      { name: '--latency', operations: ['appinfo'] },
      { name: '--error-rate', operations: ['appinfo'] }
    ])
  })

  it('refuses a bad option with the flag message', async () => {
    await expect(startFleetsim({ http: true, agents: 1, errorRate: '-5%' })).rejects.toThrow(
      new ConfigError('FLEETSIM_INVALID_VALUE', '--error-rate must be from 0% to 100%, got "-5%"')
    )
  })
})
