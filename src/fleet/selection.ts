/**
 * Choosing agents on the main thread: which agents a timeline event, a stage pick or a
 * reconnect rule takes. Picks are seeded so that the same scenario and seed always choose the
 * same agents, whatever the number of workers.
 */
import { hash32 } from './random.js'

export type PickRule = { kind: 'all' } | { kind: 'fraction'; fraction: number } | { kind: 'count'; count: number }

/**
 * The agents a pick takes from `candidates` (in index order). `key` separates independent
 * picks (a stage, an occurrence of an event): fractions draw per agent, counts take the
 * agents with the lowest seeded rank.
 */
export function pickAgents(candidates: number[], rule: PickRule, seed: number, key: number, stream: number): number[] {
  switch (rule.kind) {
    case 'all':
      return candidates
    case 'fraction':
      return candidates.filter((i) => hash32(seed, i, key, stream) / 4294967296 < rule.fraction)
    case 'count': {
      if (candidates.length <= rule.count) return candidates
      const ranked = candidates.map((i) => ({ i, rank: hash32(seed, i, key, stream) }))
      ranked.sort((a, b) => a.rank - b.rank || a.i - b.i)
      return ranked
        .slice(0, rule.count)
        .map((r) => r.i)
        .sort((a, b) => a - b)
    }
  }
}
