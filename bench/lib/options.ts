/**
 * Reading the numbers of a bench command's line (node:util parseArgs values), with the sentence a
 * wrong one is refused with: `--<name> must be …, got "<what was given>"`.
 */
type Values = Record<string, string | boolean | undefined>

/** `values[name]` as a whole number of at least `min`, or the sentence saying it is not one. */
export function wholeOption(values: Values, name: string, min: number): number | string {
  const n = Number(values[name])
  return Number.isInteger(n) && n >= min ? n : `--${name} must be a whole number of at least ${min}, got ${JSON.stringify(values[name])}`
}

/** `values[name]` as a finite number above 0, or the sentence saying it is not one. */
export function positiveOption(values: Values, name: string): number | string {
  const n = Number(values[name])
  return Number.isFinite(n) && n > 0 ? n : `--${name} must be a number above 0, got ${JSON.stringify(values[name])}`
}
