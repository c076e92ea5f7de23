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
      return candidates.filter((i) => inFraction(i, rule.fraction, seed, key, stream))
    case 'count':
      if (candidates.length <= rule.count) return candidates
      return lowestRanked(candidates, rule.count, seed, key, stream)
  }
}

/**
 * The agents [0, n) in the order of their seeded rank for a pick (`hash32(seed, i, key, stream)`,
 * the rank a count pick takes the lowest of), ties by index. Two stable passes of a radix sort on
 * 16 bits each: linear in n, where a sort by comparison is n log n calls of a comparator. A
 * reconnect rule's count walks it from the front to the first agents matching its selector at
 * each call (scenario-runtime.ts).
 */
export function rankOrder(n: number, seed: number, key: number, stream: number): Int32Array {
  const ranks = new Uint32Array(n)
  for (let i = 0; i < n; i++) ranks[i] = hash32(seed, i, key, stream)
  let from = new Int32Array(n)
  for (let i = 0; i < n; i++) from[i] = i
  let to = new Int32Array(n)
  const counts = new Uint32Array(65_537)
  for (const shift of [0, 16]) {
    counts.fill(0)
    for (let k = 0; k < n; k++) counts[((ranks[from[k]] >>> shift) & 0xffff) + 1]++
    for (let b = 0; b < 65_536; b++) counts[b + 1] += counts[b]
    for (let k = 0; k < n; k++) {
      const i = from[k]
      to[counts[(ranks[i] >>> shift) & 0xffff]++] = i
    }
    ;[from, to] = [to, from]
  }
  return from
}

/** Whether a fraction pick takes agent i: its seeded draw for the pick is under the fraction. */
export function inFraction(i: number, fraction: number, seed: number, key: number, stream: number): boolean {
  return hash32(seed, i, key, stream) / 4294967296 < fraction
}

/**
 * The `count` candidates of the lowest seeded rank (ties: the lower index), in index order.
 * A bounded heap of the best so far, its worst on top: n log count, where ranking and sorting
 * every candidate made an object for each and sorted them all.
 */
function lowestRanked(candidates: number[], count: number, seed: number, key: number, stream: number): number[] {
  const ranks = new Float64Array(count)
  const agents = new Int32Array(count)
  /** whether heap entry a goes after entry b: a higher rank, or the same and a higher index */
  const after = (a: number, b: number) => ranks[a] > ranks[b] || (ranks[a] === ranks[b] && agents[a] > agents[b])
  const swap = (a: number, b: number) => {
    const rank = ranks[a]
    const agent = agents[a]
    ranks[a] = ranks[b]
    agents[a] = agents[b]
    ranks[b] = rank
    agents[b] = agent
  }
  let size = 0
  for (const i of candidates) {
    const rank = hash32(seed, i, key, stream)
    if (size < count) {
      // Sift up from the end.
      ranks[size] = rank
      agents[size] = i
      for (let at = size++; at > 0 && after(at, (at - 1) >> 1); at = (at - 1) >> 1) swap(at, (at - 1) >> 1)
      continue
    }
    if (rank > ranks[0] || (rank === ranks[0] && i > agents[0])) continue
    // Replaces the worst kept, then sifts it down.
    ranks[0] = rank
    agents[0] = i
    for (let at = 0; ; ) {
      const left = 2 * at + 1
      const right = left + 1
      let worst = at
      if (left < size && after(left, worst)) worst = left
      if (right < size && after(right, worst)) worst = right
      if (worst === at) break
      swap(at, worst)
      at = worst
    }
  }
  return Array.from(agents).sort((a, b) => a - b)
}
