/** The error of a bad command line or environment: the CLI prints its message and exits 2. */

/** Stable codes of configuration errors; match on `code`, not on the message. */
export type ConfigErrorCode =
  | 'FLEETSIM_UNKNOWN_FLAG'
  | 'FLEETSIM_UNEXPECTED_ARGUMENT'
  | 'FLEETSIM_MISSING_VALUE'
  | 'FLEETSIM_UNEXPECTED_VALUE'
  | 'FLEETSIM_INVALID_VALUE'
  | 'FLEETSIM_CONFLICTING_FLAGS'

export class ConfigError extends Error {
  readonly code: ConfigErrorCode
  constructor(code: ConfigErrorCode, message: string) {
    super(message)
    this.name = 'ConfigError'
    this.code = code
  }
}
