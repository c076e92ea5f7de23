/**
 * Every shell block marked `sh runnable` in README.md and docs/*.md runs against a real
 * `fleetsim serve` (a default fleet on a free port, in a temporary directory) and must exit 0;
 * curl fails as with `--fail`. How the commands are rewritten and where they run:
 * test/docs/doc-runner.ts. The files run in order (README first), each in one bash, so their
 * commands meet the server in the state the commands before them left it in.
 *
 * To mark a block: ```` ```sh runnable ````. Mark only what is quick (seconds) and safe to run
 * against a test server: no second server (`npm start`), no placeholders, nothing outside the
 * temporary directory.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { describeFailure, runDocument, startDocServer, type DocServer } from './doc-runner.js'
import { runnableFences } from './fences.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const files = ['README.md', ...readdirSync(`${root}docs`).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`)]
const documents = files.map((file) => ({ file, blocks: runnableFences(file, readFileSync(`${root}${file}`, 'utf8')) })).filter(({ blocks }) => blocks.length > 0)

let server: DocServer
beforeAll(async () => {
  server = await startDocServer(root)
})
afterAll(async () => {
  await server?.close()
})

describe('the runnable commands of the docs', () => {
  it('are found in the README and in the docs of the admin API and the harness', () => {
    expect(documents.map(({ file }) => file)).toEqual(expect.arrayContaining(['README.md', 'docs/admin.md', 'docs/harness.md']))
  })

  it.each(documents)('all succeed against a real server: $file', async ({ blocks }) => {
    const failures = await runDocument(blocks, server)
    expect(failures.map(describeFailure)).toEqual([])
  }, 180_000)
})

describe('the runner', () => {
  it('reports each failing command with its line and exit status, and runs the rest', async () => {
    const doc = [
      '# A page with mistakes',
      '```sh runnable',
      "curl -k -H 'REST_USER: admin' -H 'REST_PASSWORD: admin' https://127.0.0.1:9443/manager/mvc/restservice/appinfo.json",
      "curl -k -H 'REST_USER: admin' -H 'REST_PASSWORD: admin' \\",
      '  https://127.0.0.1:9443/manager/mvc/restservice/agentinf.json',
      'npx fleetsim scenario validate scenarios/no-such-file.yaml',
      'echo still running',
      '```'
    ].join('\n')
    const failures = await runDocument(runnableFences('mistakes.md', doc), server)
    // 22: curl's --fail status for the 404, which also shows the server was reached on its port.
    expect(failures.map(({ file, line, command, status }) => ({ file, line, command, status }))).toEqual([
      { file: 'mistakes.md', line: 4, command: "curl -k -H 'REST_USER: admin' -H 'REST_PASSWORD: admin' \\\n  https://127.0.0.1:9443/manager/mvc/restservice/agentinf.json", status: 22 },
      { file: 'mistakes.md', line: 6, command: 'npx fleetsim scenario validate scenarios/no-such-file.yaml', status: 1 }
    ])
    expect(failures[0].output).toContain('The requested URL returned error: 404')
  }, 60_000)

  it('reports an unset variable, which stops the shell', async () => {
    const failures = await runDocument(runnableFences('unset.md', '```sh runnable\ncurl $B https://127.0.0.1:9443/__admin/fleet\n```\n'), server)
    expect(failures).toMatchObject([{ file: 'unset.md', line: 2, command: 'curl $B https://127.0.0.1:9443/__admin/fleet', status: 'shell exited 1' }])
  })
})
