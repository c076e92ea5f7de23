/**
 * The defaults the loader fills in, in one frozen object. docs/scenarios.md quotes them; a test
 * checks that an empty scenario normalises to exactly these.
 */
import { deepFreeze } from './freeze.js'
import type { Behaviour, Distribution, FleetSpec, ModuleSet } from './types.js'

const DEFAULT_MODULE_SET: ModuleSet = {
  name: 'syslog-forwarder',
  modules: [
    { name: 'in_syslog', kind: 'im_udp', type: 'INPUT' },
    { name: 'out_tcp', kind: 'om_tcp', type: 'OUTPUT' }
  ]
}

export const DEFAULTS = deepFreeze({
  fleet: {
    agents: 100,
    seed: 1,
    os: [
      { value: 'Ubuntu 22.04', probability: 0.4 },
      { value: 'Windows Server 2022', probability: 0.3 },
      { value: 'RHEL 9', probability: 0.2 },
      { value: 'Debian 12', probability: 0.1 }
    ],
    versions: [{ value: '6.4.8', probability: 1 }],
    modes: [{ value: 'Connect', probability: 1 }],
    moduleSets: [{ value: DEFAULT_MODULE_SET, probability: 1 }],
    labels: [],
    templates: [],
    ramp: null,
    states: [{ value: 'ONLINE', probability: 1 }]
  } satisfies FleetSpec as FleetSpec,
  /** about one disconnect per agent every two days, a module crash every eight */
  behaviour: {
    disconnect: { rate: 0.02 / 3600, outage: { kind: 'exponential', mean: 90, max: 1800 } },
    moduleCrash: { rate: 0.005 / 3600, restartDelay: { kind: 'uniform', min: 5, max: 30 } }
  } satisfies Behaviour as Behaviour,
  /** successful reconnects take 1 to 4 virtual seconds, well under the 10 s wait */
  reconnectDelay: { kind: 'uniform', min: 1, max: 4 } satisfies Distribution as Distribution,
  /** the reconnect wait of the spec: a reconnect taking this long has failed */
  reconnectWait: 10,
  faultStatus: 503,
  faultMessage: 'fault injected by the fleetsim scenario'
})
