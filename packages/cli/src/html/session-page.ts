/**
 * A stored session's page: the session is exported as trace v1 and audited like a file (what
 * loopguard would have flagged in shadow mode), and its steps are the stored replies in order.
 */
import type { AssistantMessage, Message, UserMessage } from "@loopguard/core/model"
import type { LoopguardConfig } from "@loopguard/effect"
import { auditConfig, auditTrace } from "@loopguard/effect/audit"
import { exportTrace } from "@loopguard/effect/store"
import { redactDeep } from "@loopguard/core/try-best"
import { Effect } from "effect"
import { logRedactor } from "../render/env-secrets.js"
import { stepView, type RunPage, type StepView } from "./page-model.js"

/** Stored messages as the page's steps: each reply with the user messages before it. */
export const sessionSteps = (messages: ReadonlyArray<Message>, redact: (t: string) => string): Array<StepView> => {
  const steps: Array<StepView> = []
  let users: Array<UserMessage> = []
  for (const m of messages) {
    if (m.role === "user") users.push(m)
    else {
      steps.push(stepView(steps.length, 0, users, m as AssistantMessage, redact))
      users = []
    }
  }
  return steps
}

export const sessionRunPage = (id: string, messages: ReadonlyArray<Message>, config: LoopguardConfig): Effect.Effect<RunPage, string> =>
  Effect.gen(function* () {
    const redact = logRedactor()
    const audit = yield* auditTrace(`session ${id}`, exportTrace(id, messages), auditConfig(config), "trace")
    if (audit._tag === "failed") return yield* Effect.fail(audit.errors.join("\n"))
    return { title: redact(`session ${id}`), file: redact(`session ${id}`), format: "stored session", steps: sessionSteps(messages, redact), incidents: redactDeep(audit.incidents, redact), exit: audit.exit, notes: audit.notes.map(redact) }
  })
