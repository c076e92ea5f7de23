/**
 * "Did you mean" suggestions: the closest candidate by edit distance (insertions, deletions,
 * substitutions and swaps of neighbours), if it is close enough to be a plausible typo: at most
 * a third of the word's length, and at least one edit. Failing that, the longest candidate of
 * three letters or more that the word starts with: `--outdir` is `--out` with more written.
 */

/** Optimal string alignment distance: Levenshtein plus adjacent transpositions. Three rows of memory. */
export function editDistance(a: string, b: string): number {
  let before = new Array<number>(b.length + 1).fill(0)
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  let current = new Array<number>(b.length + 1).fill(0)
  for (let i = 1; i <= a.length; i++) {
    current[0] = i
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let d = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2] + 1)
      current[j] = d
    }
    ;[before, previous, current] = [previous, current, before]
  }
  return previous[b.length]
}

export function suggest<T extends string>(word: string, candidates: readonly T[]): T | undefined {
  // A word far longer than every candidate is no typo of one, and measuring it would cost its
  // length times theirs: a client's 1 MB path must not take seconds to answer 404.
  const longest = candidates.reduce((most, candidate) => Math.max(most, candidate.length), 0)
  if (word.length > 2 * longest + 2) return undefined
  const lower = word.toLowerCase()
  const limit = Math.max(1, Math.floor(word.length / 3))
  let best: T | undefined
  let bestDistance = Infinity
  for (const candidate of candidates) {
    // At least the difference in length: too far, whatever the letters.
    if (Math.abs(candidate.length - word.length) > limit) continue
    // A difference in case only counts as one edit: `online` is a typo of `ONLINE`.
    const d = candidate === word ? 0 : Math.max(editDistance(lower, candidate.toLowerCase()), 1)
    if (d < bestDistance) {
      best = candidate
      bestDistance = d
    }
  }
  if (bestDistance <= limit) return best
  let prefix: T | undefined
  for (const candidate of candidates) {
    if (candidate.length >= 3 && lower.startsWith(candidate.toLowerCase()) && (prefix === undefined || candidate.length > prefix.length)) prefix = candidate
  }
  return prefix
}
