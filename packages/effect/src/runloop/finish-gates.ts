/**
 * What stands between a `final` reply and the end of the run: the completion check (a command,
 * objective and cheap, first) and the goal gate (an evaluator call). Each has its own cap so a
 * disagreement can never loop forever. A pause never reaches here: it ends the run before.
 */
import { completionCheckFeedback, goalGateFeedback } from "@loopguard/core/gate"
import {
  textOf,
  toolPartsOf,
  type AssistantMessage,
  type ExitReason,
  type Message,
  type ReminderKind
} from "@loopguard/core/model"
import { Effect } from "effect"
import type { LoopguardConfig } from "../config/schema.js"
import type { CompletionCheck } from "../gate/CompletionCheck.js"
import type { GoalGate } from "../gate/GoalGate.js"
import type { Incident } from "./report.js"
import type { SessionStoreError } from "../store/SessionStoreError.js"

export type FinishGateVerdict =
  | { readonly type: "accept" }
  | { readonly type: "continue"; readonly kind: ReminderKind; readonly text: string }
  | { readonly type: "exit"; readonly reason: ExitReason; readonly error: { readonly tag: string; readonly message: string } }

export interface FinishGatesDeps {
  readonly config: LoopguardConfig
  readonly goalGate: GoalGate["Service"]
  readonly completionCheck: CompletionCheck["Service"]
  readonly goal: () => Effect.Effect<string, SessionStoreError>
  readonly messages: () => Effect.Effect<ReadonlyArray<Message>, SessionStoreError>
}

const workOf = (messages: ReadonlyArray<Message>): Array<string> =>
  messages
    .flatMap((m) => (m.role === "assistant" && m.excluded === undefined ? toolPartsOf(m) : []))
    .filter((p) => p.state === "completed")
    .map((p) => `${p.name} ${JSON.stringify(p.input).slice(0, 120)}${p.exitCode !== undefined ? ` (exit ${p.exitCode})` : ""}`)
    .slice(-30)

/** The completion check and goal gate a final reply passes through, each with its own cap. */
export const makeFinishGates = (deps: FinishGatesDeps) => {
  let checkFailures = 0
  let gateChecks = 0
  const { config } = deps
  return {
    /** Judges a final reply; `file` files each gate's incident as it is decided. */
    check: (reply: AssistantMessage, step: number, file: (i: Incident) => Effect.Effect<void>): Effect.Effect<FinishGateVerdict, SessionStoreError> =>
      Effect.gen(function* () {
        const command = config.completion_check.command
        if (command !== null) {
          const r = yield* deps.completionCheck.run(command, config.completion_check.timeoutMs)
          yield* file({ step, detector: "completion-check", action: r.ok ? "passed" : "failed", detail: { command, exitCode: r.exitCode } })
          if (!r.ok) {
            checkFailures += 1
            if (checkFailures >= config.completion_check.maxFailures) {
              return { type: "exit", reason: "completion_check_failed", error: { tag: "CompletionCheckError", message: `\`${command}\` still fails after ${checkFailures} attempts` } }
            }
            return { type: "continue", kind: "completion-check", text: completionCheckFeedback(command, r.exitCode, r.output) }
          }
        }
        if (config.goal_gate.enabled) {
          if (gateChecks >= config.goal_gate.maxChecks) {
            return { type: "exit", reason: "goal_gate_cap", error: { tag: "GoalGateCapError", message: `the goal gate judged the goal unmet ${gateChecks} times` } }
          }
          gateChecks += 1
          const messages = yield* deps.messages()
          const verdict = yield* deps.goalGate.judge({ goal: yield* deps.goal(), answer: textOf(reply), work: workOf(messages) })
          yield* file({
            step,
            detector: "goal-gate",
            action: verdict.met ? (verdict.understood ? "met" : "unclear-accepted") : "not-met",
            detail: { reason: verdict.reason.slice(0, 500), check: gateChecks }
          })
          if (!verdict.met) return { type: "continue", kind: "goal-gate", text: goalGateFeedback(verdict.reason) }
        }
        return { type: "accept" }
      })
  }
}

export type FinishGates = ReturnType<typeof makeFinishGates>
