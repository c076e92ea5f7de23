/**
 * The layer rule of src/ (docs/architecture.md, "Layers"), checked by `npm run depcheck`, which
 * `npm test` runs. A folder may import its own floor's leaves and anything below it, never
 * above; no import cycles at all.
 *
 *  10 cli.ts, index.ts, commands/           the executable and the package entry
 *   9 server.ts, embed.ts                   listening; startFleetsim
 *   8 app.ts, simulation.ts, config.ts      the composition root, the simulation's start, serve's flags
 *   7 console/                              the browser console: drives the floors below it
 *   6 admin/, faults/, state/, run/         what the app adds around the facade
 *   5 http/                                 routes, formats, limits, connections, the fast path
 *   4 manager/, metrics/, journal/          the manager's state, Prometheus metrics, the request journal
 *   3 fleet/                                the simulated fleet
 *   2 scenario/, tls/, conformance/         the scenario language, the CA; the conformance client
 *   1 flags/                                command-line flags
 *   0 protocol/, lib/                       the protocol's vocabulary, generic helpers: import nothing of ours
 *
 * conformance/ is a client of any manager: it may import only protocol/, lib/ and flags/.
 */
const floors = [
  ['protocol', 'lib'],
  ['flags'],
  ['scenario', 'tls', 'conformance'],
  ['fleet'],
  ['manager', 'metrics', 'journal'],
  ['http'],
  ['admin', 'faults', 'state', 'run'],
  ['console'],
  ['app.ts', 'simulation.ts', 'config.ts'],
  ['server.ts', 'embed.ts'],
  ['cli.ts', 'index.ts', 'commands']
]

/** `src/<name>` as a path pattern: a folder's files, or one top-level file. */
const path = (name) => (name.endsWith('.ts') ? `^src/${name.replace('.', '\\.')}$` : `^src/${name}/`)
const anyOf = (names) => names.map(path).join('|')

const upward = floors.flatMap((names, floor) => {
  const above = floors.slice(floor + 1).flat()
  if (above.length === 0) return []
  return [
    {
      name: `floor-${floor}-imports-up`,
      comment: `${names.join(', ')} may not import ${above.join(', ')} (a higher floor)`,
      severity: 'error',
      from: { path: anyOf(names) },
      to: { path: anyOf(above) }
    }
  ]
})

/** Folders on one floor do not import each other either, except where listed. */
const sideways = floors.flatMap((names, floor) =>
  names.map((name) => ({
    name: `floor-${floor}-${name.replace('.ts', '')}-imports-sideways`,
    comment: `${name} may not import its neighbours on floor ${floor} (${names.filter((n) => n !== name).join(', ')})`,
    severity: 'error',
    from: { path: path(name) },
    to: { path: names.filter((n) => n !== name).map(path).join('|') || '^$' }
  }))
).filter((rule) => rule.to.path !== '^$')

// What one floor's members may take from each other, and why.
const allowedSideways = {
  // The composition root builds the simulation's settings from serve's flags.
  'floor-8-app-imports-sideways': 'config\\.ts$',
  'floor-8-simulation-imports-sideways': 'config\\.ts$',
  // startFleetsim starts a real server.
  'floor-9-embed-imports-sideways': 'server\\.ts$',
  // The package entry exports the executable's pieces; the executable dispatches to commands.
  'floor-10-index-imports-sideways': 'commands/',
  'floor-10-cli-imports-sideways': 'commands/',
  // Admin routes save the state and switch the faults.
  'floor-6-admin-imports-sideways': '^src/(state|faults)/'
}
for (const rule of sideways) {
  const allowed = allowedSideways[rule.name]
  if (allowed !== undefined) rule.to.pathNot = allowed
}

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'a cycle makes two modules one: cut it with a lower module both import',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true }
    },
    {
      name: 'conformance-is-a-client',
      comment: 'the conformance suite runs against any manager: it imports only protocol/, lib/ and flags/',
      severity: 'error',
      from: { path: '^src/conformance/' },
      to: { path: '^src/', pathNot: '^src/(conformance|protocol|lib|flags)/' }
    },
    ...upward,
    ...sideways
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] }
  }
}
