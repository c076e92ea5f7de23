/**
 * One command-line flag, written once: its name, the placeholder of its value, its default,
 * the rule its value must follow and its help line. Every fleetsim command declares its flags
 * as a table of these and reads them with `parseFlags` (src/flags/parse.ts), so every command
 * reports a bad flag the same way: `--agents must be a positive integer, got "ten"`.
 */

/**
 * A value broke the flag's rule. `rule` completes the sentence "--flag must …", e.g.
 * `be a positive integer`; the parser adds the flag, the value and where it came from.
 */
export class RuleError extends Error {
  constructor(readonly rule: string) {
    super(rule)
    this.name = 'RuleError'
  }
}

/** Turns the text of a flag's value into its value, or throws RuleError. */
export type Rule<T> = (text: string) => T

interface FlagBase {
  /** the flag without dashes, kebab-case: `app-path` */
  readonly name: string
  /** one line for help */
  readonly help: string
  /** the default as help shows it: `9443`, `none`, `the number of CPUs` */
  readonly defaultText: string
  /** whether `FLEETSIM_<NAME>` may set it when the flag is absent (serve's flags); default false */
  readonly env?: boolean
}

/** A flag that takes a value: `--port 9443` or `--port=9443`. */
export interface ValueFlag<T> extends FlagBase {
  readonly kind: 'value'
  /** the placeholder help shows: `<port>` */
  readonly valueName: string
  readonly rule: Rule<T>
}

/** A switch: `--http` turns it on, `--no-http` off; its env twin takes true/false, 1/0, yes/no, on/off. */
export interface SwitchFlag extends FlagBase {
  readonly kind: 'switch'
}

export type Flag<T = unknown> = ValueFlag<T> | SwitchFlag

/** The value type of a flag: what its rule returns, or boolean for a switch. */
export type FlagValue<F> = F extends ValueFlag<infer T> ? T : F extends SwitchFlag ? boolean : never

export function valueFlag<T>(spec: Omit<ValueFlag<T>, 'kind'>): ValueFlag<T> {
  return Object.freeze({ kind: 'value', ...spec })
}

export function switchFlag(spec: Omit<SwitchFlag, 'kind' | 'defaultText'> & { defaultText?: string }): SwitchFlag {
  return Object.freeze({ kind: 'switch', defaultText: 'false', ...spec })
}

/** The env twin of a flag: `app-path` → `FLEETSIM_APP_PATH`. */
export function envName(flag: string): string {
  return `FLEETSIM_${flag.toUpperCase().replace(/-/g, '_')}`
}

/** How help writes a flag: `--port <port>` or `--http`. */
export function flagUsage(flag: Flag): string {
  return flag.kind === 'switch' ? `--${flag.name}` : `--${flag.name} ${flag.valueName}`
}
