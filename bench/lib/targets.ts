/** The targets of issues 3 and 6, checked against a run's figures (only those the run measured). */
import type { BenchResults, TargetCheck } from './results.js'

export function checkTargets(results: BenchResults): TargetCheck[] {
  const checks: TargetCheck[] = []
  const row = (name: string) => results.rows.find((r) => r.name === name)
  const json = row('fleetsim, JSON')
  if (json?.ratio != null) {
    checks.push({ name: 'agentinfo one agent, JSON over HTTP', goal: '>= 90% of bare fastify req/s', value: `${(json.ratio * 100).toFixed(1)}%`, met: json.ratio >= 0.9 })
  }
  const stop = results.rows.find((r) => r.name.startsWith('stopagent, 10000 UUIDs, paused'))
  if (stop !== undefined) {
    checks.push({ name: 'stopagent with 10,000 agentUuids', goal: 'p50 < 100 ms', value: `p50 ${stop.latencyMs.p50} ms`, met: stop.latencyMs.p50 < 100 && stop.non2xx === 0 })
  }
  const list = results.lists.find((l) => l.agents === 100_000)
  if (list !== undefined) {
    checks.push({ name: 'agentinfo every ONLINE agent of 100k', goal: 'answer starts < 100 ms', value: `first byte ${list.firstByteMs.median} ms (max ${list.firstByteMs.max})`, met: list.firstByteMs.max < 100 })
    checks.push({ name: 'agentinfo every ONLINE agent of 100k', goal: 'memory flat (growth < 64 MB under load)', value: `RSS +${list.rssMb.growth} MB`, met: list.rssMb.growth < 64 })
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
