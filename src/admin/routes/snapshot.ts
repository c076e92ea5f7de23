/**
 * POST /__admin/snapshot: saves the simulation to --state-file now. Without one: 409
 * E_NO_STATE_FILE; a save that fails: 500 E_STATE_SAVE_FAILED naming the file and the cause
 * (disk full, no permission, ...), with the previous file left as it was.
 */
import type { FastifyInstance } from 'fastify'
import { apiError } from '../../protocol/errors.js'
import { StateSaveError } from '../../state/state-saver.js'
import { adminSchema } from '../openapi.js'

export type SaveState = () => Promise<{ path: string; savedAt: string }>

export function snapshotRoutes(app: FastifyInstance, saveState: SaveState | undefined): void {
  app.post('/snapshot', { schema: adminSchema('adminSaveSnapshot', 'Save the simulation to the state file') }, async () => {
    if (saveState === undefined) throw apiError('E_NO_STATE_FILE')
    try {
      return await saveState()
    } catch (error) {
      if (!(error instanceof StateSaveError)) throw error
      const failure = apiError('E_STATE_SAVE_FAILED', { path: error.path, cause: error.reason })
      // The admin error handler logs 5xx answers with their error: keep the file system's one.
      failure.cause = error
      throw failure
    }
  })
}
