/**
 * The effectful half of the finish gates: run the completion check's command, and ask the goal
 * gate's evaluator with the goal, the answer and the work done. The interpreter calls these when a
 * final answer must pass the gates; core's step judge (`judgeCompletionCheck`, `judgeGoalGateTurn`,
 * `judgeGoalGateAnswer`) weighs what they return, caps included.
 */
import type { GoalVerdict } from "@loopguard/core/gate"
import { textOf, toolPartsOf, type AssistantMessage, type Message } from "@loopguard/core/model"
import type { FinishGateSettings } from "@loopguard/core/step"
import { Effect } from "effect"
import type { LoopguardConfig } from "../config/schema.js"
import type { SessionStoreError } from "../store/SessionStoreError.js"
import type { RunServices } from "./run-context.js"

/** The gates as the config sets them. */
export const finishGateSettings = (config: LoopguardConfig): FinishGateSettings => ({
  command: config.completionCheck.command,
  maxFailures: config.completionCheck.maxFailures,
  goalGate: config.goalGate.enabled,
  maxChecks: config.goalGate.maxChecks
})

/** The completed tool calls the answer stands on, newest last (at most 30). */
const workOf = (messages: ReadonlyArray<Message>): Array<string> =>
  messages
    .flatMap((m) => (m.role === "assistant" && m.excluded === undefined ? toolPartsOf(m) : []))
    .filter((p) => p.state === "completed")
    .map((p) => `${p.name} ${JSON.stringify(p.input).slice(0, 120)}${p.exitCode !== undefined ? ` (exit ${p.exitCode})` : ""}`)
    .slice(-30)

/** Asks the goal gate whether the user's turn `userId` is met by `reply`, given the session's work. */
export const askGoalGate = (s: RunServices, sessionId: string, userId: string, reply: AssistantMessage): Effect.Effect<GoalVerdict, SessionStoreError> =>
  Effect.gen(function* () {
    const work = workOf(yield* s.store.messages(sessionId))
    const turn = (yield* s.store.messages(sessionId)).find((m) => m.id === userId)
    const goal = turn?.role === "user" ? turn.text : ""
    return yield* s.goalGate.judge({ goal, answer: textOf(reply), work })
  })
