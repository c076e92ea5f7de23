/** Shared pieces of the fleet tests. */
import { afterEach } from 'vitest'
import type { FleetEngine } from '../../src/fleet/fleet.js'
import type { CompileContext } from '../../src/fleet/scenario-program.js'

/** Template ids as a manager would hand them out: the next number for each new name. */
export function templateIds(): CompileContext {
  const ids = new Map<string, number>()
  return { templateId: (name) => ids.get(name) ?? (ids.set(name, ids.size), ids.size - 1) }
}

/** Engines a test opened, closed after each test (call once at a file's top level). */
export function closeAfterEach(): FleetEngine[] {
  const open: FleetEngine[] = []
  afterEach(async () => {
    await Promise.all(open.splice(0).map((engine) => engine.close()))
  })
  return open
}
