/**
 * The manager's status poll. The real manager asks each agent for its status every 60 seconds
 * (notes/manager-facts.md, "Fleet behaviour"), so what agentinfo shows of an agent's flow
 * (its event counters, load, memory and when it was last seen online) is what the agent
 * reported at the last poll, or at its last change of state, which it reports at once.
 *
 * Each agent is polled at a phase of its own (a draw from the seed and its index), so the fleet's
 * figures move a few agents at a time rather than all at the top of the minute. Between two
 * polls an agent's answer stays the same to the byte, which is what lets the item writer keep
 * it (src/http/item-writer.ts).
 */
import { Stream, hash32 } from './random.js'

/** The real manager's interval, in virtual seconds (--status-poll). */
export const DEFAULT_STATUS_POLL_SECONDS = 60

/**
 * The virtual second of the last poll of agent i at or before t; t itself when the interval is
 * 0 (the agent's figures live at every second). Before an agent's first poll this is a second
 * before t's run began; agent-view.ts shows the later of it and the agent's last change.
 */
export function lastPollAt(seed: number, i: number, t: number, interval: number): number {
  if (interval <= 0) return t
  const phase = hash32(seed, i, Stream.STATUS_POLL) % interval
  return t - ((((t - phase) % interval) + interval) % interval)
}
