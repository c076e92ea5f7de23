/** What every admin route module is given. */
import type { FleetEngine } from '../fleet/fleet.js'
import type { FaultState } from '../faults/state.js'
import type { Manager } from '../manager/manager.js'

export interface AdminContext {
  engine: FleetEngine
  manager: Manager
  faults: FaultState
}
