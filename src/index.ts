/** The programmatic entry of the fleetsim package. */
export { parseServeConfig, ConfigError, SERVE_DEFAULTS, SERVE_FLAGS, LOG_LEVELS } from './config.js'
export type { ServeConfig, LogLevel, ConfigContext, ConfigErrorCode, FlagSpec } from './config.js'
export { startServer, createLogger } from './server.js'
export type { RunningServer, StartOptions } from './server.js'
export type { CaInfo } from './tls/ca-info.js'
