/**
 * Fewer points for a line or area drawn `width` pixels wide, without losing what the eye would
 * see: per pixel column, the sample with the lowest and the one with the highest value (min/max
 * decimation, as charting tools do it). A column shows the span of its values and nothing more, so
 * those two draw the same picture; averaging or picking every n-th sample would smooth away a dip
 * of a few samples (a fleet outage of seconds in a run of days).
 */

/** The pixel column of an x in 0..width; the right edge (x = width) belongs to the last column. */
const columnOf = (x: number, width: number) => Math.min(width - 1, Math.max(0, Math.floor(x)))

/**
 * The indices of `values` to draw, ascending: all of them when there are no more than `width`
 * (the drawing stays exactly as it was), else each column's lowest and highest (the first sample
 * at each, in time order) and the series' first and last sample, so the line still starts and
 * ends where the data does. At most 2 × width + 2 indices.
 *
 * `xs` are the samples' x positions from the plot's left edge in pixels, not decreasing (samples in
 * time order); `values` the series at those samples.
 */
export function minMaxPerColumn(xs: readonly number[], values: readonly number[], width: number): number[] {
  const count = values.length
  if (count <= width) return values.map((_, k) => k)
  const kept: number[] = [0]
  const keep = (k: number) => {
    // Columns come in order and lo/hi are sorted, so a repeat can only be the last one kept.
    if (k !== kept[kept.length - 1]) kept.push(k)
  }
  let start = 0
  while (start < count) {
    const column = columnOf(xs[start], width)
    let lo = start
    let hi = start
    let end = start + 1
    for (; end < count && columnOf(xs[end], width) === column; end++) {
      if (values[end] < values[lo]) lo = end
      if (values[end] > values[hi]) hi = end
    }
    keep(Math.min(lo, hi))
    keep(Math.max(lo, hi))
    start = end
  }
  keep(count - 1)
  return kept
}
