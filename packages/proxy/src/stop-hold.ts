/**
 * Whether a turn's stop still holds. The ladder raises a stop once, at the step the loop reached it;
 * a history that goes on past it without the proxy's stop answer in it (the proxy came in mid-turn,
 * the agent dropped the answer, a session resumed from its own log) is still that loop while its
 * steps repeat what the turn did before. Once `LEFT_AFTER` steps in a row did something the turn had
 * not done (another call and another command skeleton), the agent has left the loop and the stop
 * lapses: stopping its every request would cost the run a recovery it already made.
 */
import type { StepRecord } from "@loopguard/core/loops"
import type { StopVerdict } from "./verdict-types.js"

/** New steps in a row after a stop that show the agent has left the loop. */
export const LEFT_AFTER = 3

export class StopHold {
  private readonly done = new Set<string>()
  private held: StopVerdict | null = null
  private fresh = 0

  get stop(): StopVerdict | null {
    return this.held
  }

  /** The turn's next step: its record, or null for a step that made none (bookkeeping, an unfinished reply). */
  step(record: StepRecord | null): void {
    // A reply without calls neither repeats nor leaves a loop by itself.
    if (record === null || record.action === "") return
    const keys = record.skeleton === "" ? [`call:${record.action}`] : [`call:${record.action}`, `shape:${record.skeleton}`]
    const isNew = keys.every((k) => !this.done.has(k))
    for (const k of keys) this.done.add(k)
    if (this.held === null) return
    this.fresh = isNew ? this.fresh + 1 : 0
    if (this.fresh >= LEFT_AFTER) this.held = null
  }

  /** The stop the ladder raised at the step just given. */
  raise(stop: StopVerdict): void {
    this.held = stop
    this.fresh = 0
  }
}
