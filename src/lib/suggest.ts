/**
 * "Did you mean" suggestions: the closest candidate by edit distance (insertions, deletions,
 * substitutions and swaps of neighbours), if it is close enough to be a plausible typo: at most
 * a third of the word's length, and at least one edit.
 */

/** Optimal string alignment distance: Levenshtein plus adjacent transpositions. */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0))
  )
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let d = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2][j - 2] + 1)
      rows[i][j] = d
    }
  }
  return rows[a.length][b.length]
}

export function suggest<T extends string>(word: string, candidates: readonly T[]): T | undefined {
  const lower = word.toLowerCase()
  let best: T | undefined
  let bestDistance = Infinity
  for (const candidate of candidates) {
    // A difference in case only counts as one edit: `online` is a typo of `ONLINE`.
    const d = candidate === word ? 0 : Math.max(editDistance(lower, candidate.toLowerCase()), 1)
    if (d < bestDistance) {
      best = candidate
      bestDistance = d
    }
  }
  const limit = Math.max(1, Math.floor(word.length / 3))
  return bestDistance <= limit ? best : undefined
}
