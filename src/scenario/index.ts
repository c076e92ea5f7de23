/** The scenario language: load, validate and normalise scenario files. See docs/scenarios.md. */
export * from './types.js'
export { SCENARIO_ERROR_CODES, ScenarioError, formatIssue, type ScenarioErrorCode, type ScenarioIssue } from './errors.js'
export { checkScenarioValue, loadScenarioFile, loadScenarioFileOrThrow, parseFaultRule, parseScenario, type LoadResult, type ReadResult } from './load.js'
export { LIBRARY_DIR, libraryFiles, listLibrary, type LibraryEntry } from './library.js'
export { globToRegExp } from './selector.js'
export { upperBound } from './distribution.js'
export { parseDuration, parseRate, formatSeconds } from '../lib/units.js'
export { DEFAULTS } from './defaults.js'
