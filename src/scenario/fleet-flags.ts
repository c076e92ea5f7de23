/**
 * `--agents` and `--seed` given together with a scenario (`fleetsim serve --scenario`,
 * `fleetsim run`): a value on the command line replaces the scenario's `fleet.agents` or
 * `fleet.seed`, as a command-line flag beats a configuration file in most tools; a flag left out
 * leaves the scenario's value. A replacement the rest of the scenario cannot take (fewer agents
 * than its ramp has present at the start) is refused, naming both values.
 */
import { ConfigError } from '../flags/config-error.js'
import { deepFreeze } from './freeze.js'
import type { Scenario } from './types.js'

/** The values given on the command line; undefined: not given, the scenario's holds. */
export interface FleetFlags {
  readonly agents?: number | undefined
  readonly seed?: number | undefined
  /** how each was given, for messages: its flag (the default) or its env twin (`FLEETSIM_AGENTS`) */
  readonly givenAs?: { readonly agents?: string; readonly seed?: string }
}

/** What replaced what, for a log line or a summary; empty when nothing was given. */
export interface FleetReplacement {
  readonly agents?: { readonly scenario: number; readonly flag: number; readonly givenAs?: string }
  readonly seed?: { readonly scenario: number; readonly flag: number; readonly givenAs?: string }
}

/**
 * The scenario with the given `--agents` and `--seed` in place of its own (a new frozen
 * scenario; the same one when neither was given), and what was replaced. Throws ConfigError
 * when `--agents` is below `fleet.ramp.initial`.
 */
export function withFleetFlags(scenario: Scenario, flags: FleetFlags): { scenario: Scenario; replaced: FleetReplacement } {
  const { agents, seed, givenAs = {} } = flags
  if (agents === undefined && seed === undefined) return { scenario, replaced: {} }
  const ramp = scenario.fleet.ramp
  if (agents !== undefined && ramp !== null && ramp.initial > agents) {
    const as = givenAs.agents ?? '--agents'
    throw new ConfigError(
      'FLEETSIM_CONFLICTING_FLAGS',
      `${setting(as, agents)} is fewer than the ${ramp.initial} agents the ramp of ${scenario.source} has present at the start (fleet.ramp.initial); give ${setting(as, ramp.initial)} or more, or lower fleet.ramp.initial`
    )
  }
  const fleet = { ...scenario.fleet, ...(agents === undefined ? {} : { agents }), ...(seed === undefined ? {} : { seed }) }
  const replaced: FleetReplacement = {
    ...(agents === undefined ? {} : { agents: { scenario: scenario.fleet.agents, flag: agents, ...(givenAs.agents === undefined ? {} : { givenAs: givenAs.agents }) } }),
    ...(seed === undefined ? {} : { seed: { scenario: scenario.fleet.seed, flag: seed, ...(givenAs.seed === undefined ? {} : { givenAs: givenAs.seed }) } })
  }
  return { scenario: deepFreeze({ ...scenario, fleet }), replaced }
}

/** `--agents 50 replaces fleet.agents 5000; --seed 7 replaces fleet.seed 4242`, or undefined when nothing was replaced. */
export function describeReplacement(replaced: FleetReplacement): string | undefined {
  const parts = (['agents', 'seed'] as const).flatMap((key) => {
    const pair = replaced[key]
    // The scenario's own value given again (scenarios/README.md's `--seed 4242`) replaces nothing.
    return pair === undefined || pair.flag === pair.scenario ? [] : [`${setting(pair.givenAs ?? `--${key}`, pair.flag)} replaces the scenario's fleet.${key} ${pair.scenario}`]
  })
  return parts.length === 0 ? undefined : parts.join('; ')
}

/** `--agents 50`, or `FLEETSIM_AGENTS=50` for a value given by the env twin. */
function setting(name: string, value: number): string {
  return name.startsWith('--') ? `${name} ${value}` : `${name}=${value}`
}
