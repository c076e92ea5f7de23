/**
 * Runs the runnable blocks of a Markdown file (fences.ts) against a real `fleetsim serve`, the
 * way a reader would type them, and reports each command that failed with its file and line.
 *
 * Where: the server and the commands share a new temporary directory, which holds the server's
 * data directory as `.fleetsim` (so `--cacert .fleetsim/tls/ca.pem` and the CA that `fleetsim
 * report` trusts by default are the server's, unchanged), and links to the checkout's
 * `scenarios/` and `node_modules/` (documented paths like `scenarios/steady-fleet.yaml` resolve;
 * `node --import tsx` finds tsx). Outputs such as `--out out/` land there too.
 *
 * How: the blocks of one file run in order in one bash, so a variable one block sets
 * (docs/admin.md's `$A`) is there for the next. Each line is rewritten by rewriteLine (the
 * server's port for 9443; the CLI's spellings to `fleetsim`). In that bash:
 * - `fleetsim` is the CLI from the sources (`node --import tsx src/cli.ts`), not `dist/`, which
 *   may be missing or older than the sources under test; `fleetsim report` without `--target`
 *   (its default is port 9443) is pointed at the server;
 * - `curl` fails as with `--fail` (exit 22 on an HTTP status of 400 or more; the body is shown
 *   where curl has `--fail-with-body`), so a documented request that is answered with an error
 *   fails without the docs saying `-f`;
 * - an ERR trap records every command that exits non-zero, with its line, and the run goes on,
 *   so one run reports every failure; `set -u` stops at an unset variable.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { rewriteLine, type Fence } from './fences.js'

export interface DocServer {
  readonly port: number
  /** the working directory of the server and of the commands */
  readonly dir: string
  /** the checkout: src/cli.ts, scenarios/, node_modules/ */
  readonly root: string
  close(): Promise<void>
}

export interface Failure {
  readonly file: string
  /** the line of the failing command in `file` (for a command over several lines, one of them) */
  readonly line: number
  readonly command: string
  /** the exit status, or what stopped the shell */
  readonly status: number | string
  /** the end of what the command's block printed */
  readonly output: string
}

/** The environment without the caller's FLEETSIM_* settings, which would change the commands' defaults. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { NO_COLOR: '1' }
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('FLEETSIM_')) env[name] = value
  return { ...env, ...extra }
}

/**
 * `fleetsim serve` as `npm start` runs it (a default fleet: the docs' agent names exist), on a
 * free port, with `--state-file .fleetsim/state.bin` (README, "Saving and resuming") so the
 * snapshot examples work, and one worker thread.
 */
export async function startDocServer(root: string): Promise<DocServer> {
  const dir = await mkdtemp(join(tmpdir(), 'fleetsim-docs-'))
  await symlink(join(root, 'node_modules'), join(dir, 'node_modules'))
  await symlink(join(root, 'scenarios'), join(dir, 'scenarios'))
  const args = ['serve', '--port', '0', '--data-dir', '.fleetsim', '--state-file', '.fleetsim/state.bin', '--workers', '1', '--log-level', 'warn']
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/cli.ts'), ...args], { cwd: dir, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4000)))
  try {
    const port = await new Promise<number>((resolve, reject) => {
      // Read every line, not just the first: an undrained pipe would block the server's logging.
      createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
        const match = /^fleetsim listening on https:\/\/127\.0\.0\.1:(\d+)\//.exec(line)
        if (match !== null) resolve(Number(match[1]))
      })
      child.once('exit', (code, signal) => reject(new Error(`fleetsim serve stopped before listening (${signal ?? code}): ${stderr}`)))
    })
    return { port, dir, root, close: () => stop(child, dir) }
  } catch (error) {
    await stop(child, dir)
    throw error
  }
}

async function stop(child: ChildProcess, dir: string): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = once(child, 'exit')
    child.kill('SIGTERM')
    await exited
  }
  await rm(dir, { recursive: true, force: true })
}

const PRELUDE = [
  'set -u -o pipefail',
  '__doctest_failed() { printf "%s %s\\n" "$1" "$2" >> "$DOCTEST_FAILURES"; }',
  "trap '__doctest_failed $? $LINENO' ERR",
  // --fail-with-body (curl 7.76) shows the error envelope too; older curl has --fail only.
  'if command curl --help all 2>/dev/null | grep -q -- --fail-with-body; then __doctest_fail=--fail-with-body; else __doctest_fail=--fail; fi',
  'curl() { command curl "$__doctest_fail" --show-error "$@"; }',
  'fleetsim() {',
  '  if [ "${1-}" = report ]; then',
  '    case " $* " in *" --target "* | *" --target="*) ;; *) set -- "$@" --target "$DOCTEST_TARGET" ;; esac',
  '  fi',
  '  node --import tsx "$DOCTEST_ROOT/src/cli.ts" "$@"',
  '}'
]

const blockMarker = (line: number): string => `@@doctest block ${line}@@`

/** The lines of the command that `line` (1-based, in the file) belongs to: joined by `\` or a trailing `|`. */
function commandAt(fence: Fence, line: number): string {
  const continues = (text: string | undefined) => text !== undefined && /(\\|\|)\s*$/.test(text)
  let start = line - fence.line
  let end = start
  while (start > 0 && continues(fence.lines[start - 1])) start--
  while (end < fence.lines.length - 1 && continues(fence.lines[end])) end++
  return fence.lines.slice(start, end + 1).join('\n')
}

/** Runs `blocks` (the runnable fences of one file, in order) against `server`; every failed command. */
export async function runDocument(blocks: readonly Fence[], server: DocServer, timeoutMs = 120_000): Promise<Failure[]> {
  if (blocks.length === 0) return []
  const file = blocks[0].file
  // Script line (1-based) → the fence and the line of the file it came from.
  const origin: Array<{ fence: Fence; line: number } | undefined> = [undefined, ...PRELUDE.map(() => undefined)]
  const script = [...PRELUDE]
  for (const fence of blocks) {
    script.push(`printf '\\n${blockMarker(fence.line)}\\n'`)
    origin.push({ fence, line: fence.line - 1 })
    for (const [index, text] of fence.lines.entries()) {
      script.push(rewriteLine(text, server.port))
      origin.push({ fence, line: fence.line + index })
    }
  }
  script.push('exit 0')
  const scriptPath = join(server.dir, `doctest-${process.pid}-${Date.now()}.sh`)
  const failuresPath = `${scriptPath}.failures`
  await writeFile(scriptPath, `${script.join('\n')}\n`)
  await writeFile(failuresPath, '')

  const env = cleanEnv({ DOCTEST_FAILURES: failuresPath, DOCTEST_ROOT: server.root, DOCTEST_TARGET: `https://127.0.0.1:${server.port}` })
  const child = spawn('bash', [scriptPath], { cwd: server.dir, env, stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs })
  let output = ''
  const collect = (chunk: Buffer) => void (output += chunk.toString('utf8'))
  child.stdout.on('data', collect)
  child.stderr.on('data', collect)
  const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null]

  // What each block printed, by the block's line.
  const printed = new Map<number, string>()
  const parts = output.split(/\n@@doctest block (\d+)@@\n/)
  for (let index = 1; index < parts.length; index += 2) printed.set(Number(parts[index]), parts[index + 1] ?? '')
  const tail = (fence: Fence) => (printed.get(fence.line) ?? '').slice(-1500)

  const failures: Failure[] = []
  for (const record of (await readFile(failuresPath, 'utf8')).split('\n').filter((text) => text !== '')) {
    const [status, scriptLine] = record.split(' ').map(Number)
    const at = origin[scriptLine]
    if (at === undefined) failures.push({ file, line: 0, command: `(script line ${scriptLine})`, status, output: output.slice(-1500) })
    else failures.push({ file, line: at.line, command: commandAt(at.fence, at.line), status, output: tail(at.fence) })
  }
  if (code !== 0) {
    // The shell itself stopped: an unset variable, a syntax error, or the time limit.
    const where = /line (\d+):/.exec(output.slice(-2000))
    const at = where === null ? undefined : origin[Number(where[1])]
    failures.push({
      file,
      line: at?.line ?? 0,
      command: at === undefined ? '(the shell)' : commandAt(at.fence, at.line),
      status: signal === null ? `shell exited ${code}` : `shell stopped by ${signal} (over ${timeoutMs} ms?)`,
      output: output.slice(-1500)
    })
  }
  return failures
}

/** One failure as a test message: where, what, how it ended and what it printed. */
export function describeFailure(failure: Failure): string {
  return `${failure.file}:${failure.line}: \`${failure.command}\` failed (${typeof failure.status === 'number' ? `exit ${failure.status}` : failure.status})\n${failure.output.trimEnd()}`
}
