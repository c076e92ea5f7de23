/**
 * The scenario library shipped in `scenarios/`, for the console and for scripts:
 *
 * - `GET /__admin/scenarios`: every scenario with its description and what it holds
 * - `GET /__admin/scenarios/<id>`: one scenario's text (YAML), to read or edit and send back
 * - `POST /__admin/scenarios/<id>/start`: loads and starts it, as PUT /__admin/scenario would
 *
 * `<id>` is the file name without `.yaml`. Only files of the library are read: an id is looked
 * up in the library's listing, never joined to a path.
 */
import { readFile } from 'node:fs/promises'
import { basename, extname } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { suggest } from '../../lib/suggest.js'
import { apiError } from '../../protocol/errors.js'
import { formatIssue } from '../../scenario/errors.js'
import { libraryFiles } from '../../scenario/library.js'
import { parseScenario } from '../../scenario/load.js'
import type { AdminContext } from '../context.js'
import { adminSchema } from '../openapi.js'
import { compileForManager, readScenario, scenarioSummary } from '../scenario-load.js'

/** The library's files by id (`flapping-network` for `scenarios/flapping-network.yaml`). */
async function libraryById(): Promise<Map<string, string>> {
  const files = await libraryFiles()
  return new Map(files.map((file) => [basename(file, extname(file)), file]))
}

/** The file of the library scenario `id`; E_UNKNOWN_SCENARIO with the nearest id when there is none. */
async function libraryFile(id: string): Promise<{ file: string; source: string }> {
  const files = await libraryById()
  const file = files.get(id)
  if (file === undefined) {
    const names = [...files.keys()]
    const nearest = suggest(id, names)
    throw apiError('E_UNKNOWN_SCENARIO', { name: id, names, ...(nearest === undefined ? {} : { nearest }) })
  }
  return { file, source: `scenarios/${basename(file)}` }
}

export function libraryRoutes(app: FastifyInstance, { engine, manager }: AdminContext): void {
  app.get('/scenarios', { schema: adminSchema('adminListScenarios', 'The scenario library with descriptions') }, async () => {
    const files = await libraryById()
    const scenarios = await Promise.all(
      [...files].map(async ([id, file]) => {
        const source = `scenarios/${basename(file)}`
        const result = parseScenario(await readFile(file, 'utf8'), source)
        if (result.ok) return { id, source, valid: true, ...scenarioSummary(result.scenario) }
        return { id, source, valid: false, name: id, problems: result.issues.map(formatIssue) }
      })
    )
    return { scenarios }
  })

  app.get<{ Params: { id: string } }>('/scenarios/:id', { schema: adminSchema('adminGetLibraryScenario', 'One library scenario as its YAML text') }, async (request, reply) => {
    const { file } = await libraryFile(request.params.id)
    return reply.type('application/yaml; charset=utf-8').send(await readFile(file, 'utf8'))
  })

  app.post<{ Params: { id: string } }>('/scenarios/:id/start', { schema: adminSchema('adminStartLibraryScenario', 'Load and start a library scenario') }, async (request) => {
    const { file, source } = await libraryFile(request.params.id)
    const scenario = readScenario(await readFile(file, 'utf8'), source)
    await manager.serial(() => engine.reset(compileForManager(scenario, engine, manager)))
    return engine.scenarioInfo()
  })
}
