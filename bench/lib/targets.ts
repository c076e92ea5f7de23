/** The targets of issues 3, 6 and 15, checked against a run's figures (only those the run measured). */
import type { BenchResults, LoadRow, TargetCheck } from './results.js'
import { AT_SPEED_1 } from './context.js'

const POLLED = 'agentinfo one agent, polled'
const BUILT = 'agentinfo, every answer built'
const LIST = 'agentinfo by state'

const percent = (ratio: number) => `${(ratio * 100).toFixed(1)}%`

export function checkTargets(results: BenchResults): TargetCheck[] {
  const checks: TargetCheck[] = []
  const row = (group: string, name: string): LoadRow | undefined => results.rows.find((r) => r.group === group && r.name === name)
  const ratioAtLeast = (group: string, name: string, what: string, goal: number) => {
    const found = row(group, name)
    if (found?.ratio == null) return
    checks.push({ name: what, goal: `>= ${goal * 100}% of bare fastify req/s`, value: percent(found.ratio), met: found.ratio >= goal })
  }
  /** Over HTTPS the ratio is at least as good as over HTTP (TLS costs both servers). */
  const httpsNotWorse = (group: string, http: string, https: string, what: string) => {
    const plain = row(group, http)
    const tls = row(group, https)
    if (plain?.ratio == null || tls?.ratio == null) return
    // Two ratios of the same run, each the median of its rounds' ratios: within 5 points counts as as good.
    checks.push({ name: what, goal: 'ratio over HTTPS >= ratio over HTTP (5 points of noise allowed)', value: `${percent(tls.ratio)} vs ${percent(plain.ratio)}`, met: tls.ratio >= plain.ratio - 0.05 })
  }

  ratioAtLeast(POLLED, 'fleetsim, JSON', 'polled: agentinfo one agent, the same URL, JSON over HTTP', 0.9)

  ratioAtLeast(BUILT, 'fleetsim, JSON', 'built: agentinfo, 2,000 agents in turn, JSON over HTTP', 0.7)
  ratioAtLeast(BUILT, 'fleetsim, XML', 'built: agentinfo, 2,000 agents in turn, XML over HTTP', 0.6)
  ratioAtLeast(BUILT, 'fleetsim, JSON with modules', 'built: agentinfo with modules, JSON over HTTP', 0.6)
  ratioAtLeast(BUILT, 'fleetsim, XML with modules', 'built: agentinfo with modules, XML over HTTP', 0.6)
  httpsNotWorse(BUILT, 'fleetsim, JSON', 'fleetsim, JSON over HTTPS', 'built: JSON over HTTPS')
  httpsNotWorse(BUILT, 'fleetsim, XML', 'fleetsim, XML over HTTPS', 'built: XML over HTTPS')

  ratioAtLeast(LIST, 'fleetsim, ONLINE of 10k, JSON', 'list: every ONLINE agent of 10k, JSON over HTTP', 0.6)
  ratioAtLeast(LIST, 'fleetsim, ONLINE of 10k, XML', 'list: every ONLINE agent of 10k, XML over HTTP', 0.5)
  httpsNotWorse(LIST, 'fleetsim, ONLINE of 10k, JSON', 'fleetsim, ONLINE of 10k, JSON over HTTPS', 'list: 10k JSON over HTTPS')
  httpsNotWorse(LIST, 'fleetsim, ONLINE of 10k, XML', 'fleetsim, ONLINE of 10k, XML over HTTPS', 'list: 10k XML over HTTPS')
  // The same lists with the clock at speed 1, serve's default: built once a virtual second.
  ratioAtLeast(LIST, `fleetsim, ONLINE of 10k, JSON${AT_SPEED_1}`, 'list: every ONLINE agent of 10k, JSON over HTTP, clock at speed 1', 0.6)
  ratioAtLeast(LIST, `fleetsim, ONLINE of 10k, XML${AT_SPEED_1}`, 'list: every ONLINE agent of 10k, XML over HTTP, clock at speed 1', 0.5)
  httpsNotWorse(LIST, `fleetsim, ONLINE of 10k, JSON${AT_SPEED_1}`, `fleetsim, ONLINE of 10k, JSON over HTTPS${AT_SPEED_1}`, 'list: 10k JSON over HTTPS, clock at speed 1')
  httpsNotWorse(LIST, `fleetsim, ONLINE of 10k, XML${AT_SPEED_1}`, `fleetsim, ONLINE of 10k, XML over HTTPS${AT_SPEED_1}`, 'list: 10k XML over HTTPS, clock at speed 1')

  // Every workload measured against the peer: at least twice WireMock's rate. The value also
  // says what twice WireMock's rate was in bare fastify's (fleetsim's two ratios of the row):
  // where it is more than 1, the goal asked fleetsim to outpace bare fastify sending the same
  // bytes from memory over the same transport, as over HTTPS, where WireMock's TLS keeps up.
  for (const r of results.rows) {
    if (r.target !== 'fleetsim' || r.peerRatio == null) continue
    const inBare = r.ratio == null || r.peerRatio === 0 ? '' : ` (2 × WireMock = ${((2 * r.ratio) / r.peerRatio).toFixed(2)} × bare fastify)`
    checks.push({ name: `${r.group}: ${r.name.replace(/^fleetsim, /, '')}`, goal: '>= 2 × WireMock req/s', value: `${r.peerRatio.toFixed(2)} ×${inBare}`, met: r.peerRatio >= 2 })
  }

  for (const m of results.memory ?? []) {
    const what = `${m.clients} clients listing ${m.agents.toLocaleString('en-US')} agents for ${m.seconds} s`
    checks.push({ name: what, goal: 'RSS growth < 50 MB', value: `RSS +${m.rssMb.growth} MB`, met: m.rssMb.growth < 50 })
    checks.push({ name: what, goal: 'a one-agent request meanwhile: p99 < 20 ms', value: `p99 ${m.smallRequestP99Ms} ms`, met: m.smallRequestP99Ms < 20 })
  }

  const stop = results.rows.find((r) => r.name.startsWith('stopagent, 10000 UUIDs, paused'))
  if (stop !== undefined) {
    checks.push({ name: 'stopagent with 10,000 agentUuids', goal: 'p50 < 100 ms', value: `p50 ${stop.latencyMs.p50} ms`, met: stop.latencyMs.p50 < 100 && stop.non2xx === 0 })
  }
  const list = results.lists.find((l) => l.agents === 100_000 && l.format === 'json')
  if (list !== undefined) {
    checks.push({ name: 'agentinfo every ONLINE agent of 100k', goal: 'answer starts < 100 ms', value: `first byte ${list.firstByteMs.median} ms (max ${list.firstByteMs.max})`, met: list.firstByteMs.max < 100 })
  }
  for (const s of results.scale) {
    if (s.agents === 1_000_000) {
      checks.push({ name: '1M agents built', goal: '< 10 s', value: `${s.buildSeconds} s`, met: s.buildSeconds < 10 })
      checks.push({ name: '1M agents RSS', goal: '< 1 GiB', value: `${s.rssMb} MB`, met: s.rssMb < 1024 })
      checks.push({ name: '1M agents at speed 1', goal: '< 1 core', value: `${s.cpuAtSpeed1.cores} cores`, met: s.cpuAtSpeed1.cores < 1 })
    }
    if (s.agents === 10_000 && s.dayWallSeconds !== null) {
      checks.push({ name: '10k agents, 24 virtual hours', goal: '< 30 s wall', value: `${s.dayWallSeconds} s`, met: s.dayWallSeconds < 30 })
    }
  }
  return checks
}
