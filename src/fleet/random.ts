/**
 * Counter-based randomness: every draw is a pure function of its key
 * `(seed, agent, counter, stream)`. Nothing is carried between draws, so the result does not
 * depend on which worker stepped an agent or in what order shards finished (DESIGN.md,
 * "Determinism").
 *
 * The mixer is the murmur3 32-bit finaliser applied over the key words; it is fast in
 * JavaScript (Math.imul on small integers) and its output passes the usual avalanche tests,
 * which is all a simulation needs. It is not a cryptographic generator.
 */

/** Streams keep independent draws for the same agent and counter apart. */
export const Stream = {
  CHURN_WAIT: 1,
  CHURN_KIND: 2,
  OUTAGE_LENGTH: 3,
  MODULE_PICK: 4,
  RESTART_DELAY: 5,
  RECONNECT_DELAY: 6,
  RECONNECT_FAIL: 7,
  STAGE_DELAY: 8,
  STAGE_CHOICE: 9,
  STAGE_PICK: 10,
  TIMELINE_PICK: 11,
  TIMELINE_SPREAD: 12,
  REJOIN_DELAY: 13,
  IDENTITY: 14,
  MODULE_RATE: 15,
  JOIN_DELAY: 16,
  LABEL: 17,
  TEMPLATE: 18,
  STATUS_POLL: 19
} as const

function fmix(h: number): number {
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}

function mixIn(h: number, k: number): number {
  k = Math.imul(k | 0, 0xcc9e2d51)
  k = (k << 15) | (k >>> 17)
  k = Math.imul(k, 0x1b873593)
  h ^= k
  h = (h << 13) | (h >>> 19)
  return (Math.imul(h, 5) + 0xe6546b64) | 0
}

/** A 32-bit hash of up to four integer key words. */
export function hash32(seed: number, a: number, b = 0, c = 0): number {
  let h = mixIn(seed | 0, a)
  h = mixIn(h, b)
  h = mixIn(h, c)
  // The high bits of a key word beyond 32 bits (counters past 2^32) are folded in too.
  h = mixIn(h, Math.floor(a / 4294967296) ^ Math.floor(b / 4294967296))
  return fmix(h ^ 16)
}

/** A uniform draw in [0, 1) for the key. */
export function uniform(seed: number, agent: number, counter: number, stream: number): number {
  return hash32(seed, agent, counter, stream) / 4294967296
}

/** An exponentially distributed wait with the given mean (same unit as the mean). */
export function exponential(mean: number, u: number): number {
  return -Math.log(1 - u) * mean
}

/** Picks an index from cumulative weights (last entry is the total) with a draw u in [0,1). */
export function pickWeighted(cumulative: ArrayLike<number>, u: number): number {
  const total = cumulative[cumulative.length - 1]
  const target = u * total
  for (let i = 0; i < cumulative.length; i++) if (target < cumulative[i]) return i
  return cumulative.length - 1
}

/** Cumulative sums of weights, as pickWeighted wants them. */
export function cumulativeWeights(weights: readonly number[]): number[] {
  let sum = 0
  return weights.map((w) => (sum += w))
}

/**
 * A keyed permutation of 32-bit integers (a four-round Feistel network on 16-bit halves).
 * It makes identifiers that look random yet can be turned back into the agent index they
 * came from, so looking an agent up by UUID or certificate fingerprint needs no table of a
 * million entries.
 */
export function permute32(value: number, key: number): number {
  let left = value >>> 16
  let right = value & 0xffff
  for (let round = 0; round < 4; round++) {
    const next = left ^ (hash32(key, right, round) & 0xffff)
    left = right
    right = next
  }
  return ((left << 16) | right) >>> 0
}

export function unpermute32(value: number, key: number): number {
  let left = value >>> 16
  let right = value & 0xffff
  for (let round = 3; round >= 0; round--) {
    const previous = right ^ (hash32(key, left, round) & 0xffff)
    right = left
    left = previous
  }
  return ((left << 16) | right) >>> 0
}
