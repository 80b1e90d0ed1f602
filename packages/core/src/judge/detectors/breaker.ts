/**
 * The error-storm breaker as a step detector: every finished call of the reply is a sample. Its
 * hand-back ends the run only when no earlier detector already did (`exitIfNone`).
 */
import { initBreaker, recordToolResult } from "../../caps/index.js"
import { reminderText, type AgentRole } from "../../classify/index.js"
import { toolPartsOf } from "../../model/index.js"
import type { Incident } from "../../report/index.js"
import { failed } from "../../try-best/index.js"
import { stepRecords, waitingNow } from "../../loops/index.js"
import { failureIsAnswer } from "../../loops/step-record.js"
import type { JudgeConfig } from "../judge-config.js"
import type { Reminder, StepDetector, StepExit, StepFacts, StepVerdict } from "./step-detector.js"

export class BreakerDetector implements StepDetector {
  private state = initBreaker()

  constructor(
    private readonly config: JudgeConfig["breaker"],
    private readonly role: AgentRole,
    /** A fallback model exists, so the ladder has its reroute rung. */
    private readonly rerouteAvailable: boolean,
    /** The fewest looks with one answer a poll is allowed (`pollOverdue`'s minimum: the loop ladder's note rung). */
    private readonly pollMinimum: number
  ) {}

  push({ messages, reply, step, ctx, kept }: StepFacts): StepVerdict {
    // Calls held back by the cooldown never ran: they are no evidence either way.
    if (ctx.toolsPaused === true) return {}
    const options = { ...this.config, rerouteAvailable: this.rerouteAvailable }
    const incidents: Array<Incident> = []
    const reminders: Array<Reminder> = []
    let exit: StepExit | undefined
    let trip: "degrade" | "reroute" | undefined
    let waiting: boolean | undefined
    for (const part of toolPartsOf(reply)) {
      if (part.state !== "completed" && part.state !== "error") continue
      // A harness that prints its exit status instead of returning it still failed; a search
      // that matched nothing did not. A failing test run or lookup is an answer, not a storm.
      const ok = !failed(part)
      if (!ok && failureIsAnswer(part)) continue
      // A health check refused while the server's log moves on, or a poll within its patience, is waiting on a job.
      if (!ok && (waiting ??= waitingNow(kept?.records.records ?? stepRecords(messages), this.pollMinimum))) continue
      const sample = { ok, tool: part.name, ...(part.error !== undefined ? { error: part.error } : {}) }
      const d = recordToolResult(this.state, sample, options)
      this.state = d.state
      if (!d.action) continue
      incidents.push({ step, detector: "breaker", action: d.action.type, detail: { trigger: d.action.trigger, detail: d.action.detail } })
      if (d.action.type === "hand-back") exit ??= { reason: "circuit_open", error: d.action.error }
      else {
        trip = d.action.type
        const kind = d.action.type === "reroute" ? "breaker-reroute" : "breaker-degrade"
        reminders.push({ kind, text: reminderText(kind, this.role) })
      }
    }
    return {
      incidents,
      reminders,
      ...(exit !== undefined ? { exitIfNone: exit } : {}),
      ...(trip !== undefined ? { breakerTrip: trip } : {})
    }
  }
}
