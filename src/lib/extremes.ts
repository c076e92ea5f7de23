/**
 * The largest and smallest of many numbers, in a loop. `Math.max(...values)` passes every value
 * as an argument on the stack, and past about 120,000 of them (a run's samples, a journal's
 * offsets, the values of a query) it threw "Maximum call stack size exceeded".
 */
export function maxOf(values: Iterable<number>, floor = -Infinity): number {
  let max = floor
  for (const value of values) if (value > max || Number.isNaN(value)) max = value
  return max
}

export function minOf(values: Iterable<number>, ceiling = Infinity): number {
  let min = ceiling
  for (const value of values) if (value < min || Number.isNaN(value)) min = value
  return min
}
