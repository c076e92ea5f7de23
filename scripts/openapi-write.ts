/**
 * Writes docs/openapi.json, src/http/openapi-examples.ts and the client types
 * test/contract/generated/fleetsim.d.ts from a real default fleet (scripts/lib/openapi-document.ts).
 * `--check` writes nothing and fails when a file differs from what would be written;
 * test/contract/openapi-document.test.ts does the same in the test suite. Run it twice after
 * a schema change: the second run sees the examples the first one wrote.
 *
 *   npm run openapi:write            # regenerate
 *   npm run openapi:write -- --check # verify
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { startDefaultFleet } from './lib/doc-examples.js'
import { openApiFiles } from './lib/openapi-document.js'

const root = (path: string) => fileURLToPath(new URL(`../${path}`, import.meta.url))
const check = process.argv.includes('--check')

const sim = await startDefaultFleet()
let files
try {
  files = await openApiFiles(sim)
} finally {
  await sim.close()
}

let stale = 0
for (const [file, wanted] of Object.entries(files)) {
  let text = ''
  try {
    text = readFileSync(root(file), 'utf8')
  } catch {
    // a missing file is out of date
  }
  if (wanted === text) continue
  stale++
  if (check) process.stderr.write(`out of date: ${file} (run npm run openapi:write)\n`)
  else {
    writeFileSync(root(file), wanted)
    process.stdout.write(`wrote ${file}\n`)
  }
}
if (check) process.exitCode = stale > 0 ? 1 : 0
