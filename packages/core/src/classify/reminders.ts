/**
 * Every reminder loopguard writes to the model, as data. Reminders are synthetic user messages
 * (or, for the repeated-action note, an ephemeral addition to one request).
 *
 * Wording is per role because the "way out" differs: the main agent answers the user or calls a
 * tool, a subagent hands its result back to its parent, a checkpoint writer signs off with
 * CHECKPOINT_COMPLETE. Telling a subagent to "answer the user" sends its output to nobody.
 */

export type AgentRole = "main" | "subagent" | "checkpoint"

export const AGENT_ROLES: ReadonlyArray<AgentRole> = ["main", "subagent", "checkpoint"]

export type ReminderTemplateKind =
  | "length-continue"
  | "unfinished-stream"
  | "think-only"
  | "invalid"
  | "text-tool-call"
  | "dropped-tool-call"
  | "structured-output"
  | "text-repeat-remind"
  | "text-repeat-replan"
  | "text-loop-mild"
  | "text-loop-strong"
  | "repeated-action"
  | "repeated-action-paging"
  | "repeated-action-polling"
  | "action-cycle"
  | "loop-remind"
  | "soft-cap"
  | "summary"
  | "breaker-degrade"
  | "breaker-reroute"
  | "breaker-cooldown"

export const REMINDER_TEMPLATE_KINDS: ReadonlyArray<ReminderTemplateKind> = [
  "length-continue",
  "unfinished-stream",
  "think-only",
  "invalid",
  "text-tool-call",
  "dropped-tool-call",
  "structured-output",
  "text-repeat-remind",
  "text-repeat-replan",
  "text-loop-mild",
  "text-loop-strong",
  "repeated-action",
  "repeated-action-paging",
  "repeated-action-polling",
  "action-cycle",
  "loop-remind",
  "soft-cap",
  "summary",
  "breaker-degrade",
  "breaker-reroute",
  "breaker-cooldown"
]

type ByRole = Readonly<Record<AgentRole, string>>

/** How each role gets out of a stuck turn. */
export const ROLE_WAY_OUT: ByRole = {
  main: "Then either give your final answer to the user or call a tool.",
  subagent: "Then return your result to the parent agent, which is waiting for it.",
  checkpoint: "Once the checkpoint is written, reply with exactly CHECKPOINT_COMPLETE."
}

/** How each role ends when it must stop working (no tools left). */
export const ROLE_WRAP_UP: ByRole = {
  main: "Answer the user in text only: what you did, what is left, and what you recommend next.",
  subagent: "Return your result to the parent agent in text only: what you found, what is left undone.",
  checkpoint: "Write the checkpoint in text only, then reply with exactly CHECKPOINT_COMPLETE."
}

const same = (text: string): ByRole => ({ main: text, subagent: text, checkpoint: text })
const withWayOut = (text: string): ByRole => ({
  main: `${text} ${ROLE_WAY_OUT.main}`,
  subagent: `${text} ${ROLE_WAY_OUT.subagent}`,
  checkpoint: `${text} ${ROLE_WAY_OUT.checkpoint}`
})
const withWrapUp = (text: string): ByRole => ({
  main: `${text} ${ROLE_WRAP_UP.main}`,
  subagent: `${text} ${ROLE_WRAP_UP.subagent}`,
  checkpoint: `${text} ${ROLE_WRAP_UP.checkpoint}`
})

/** Who a stuck agent should ask for help. */
const ROLE_HELPER: ByRole = { main: "the user", subagent: "the parent agent", checkpoint: "the parent agent" }
const byRole = (make: (helper: string) => string): ByRole => ({
  main: make(ROLE_HELPER.main),
  subagent: make(ROLE_HELPER.subagent),
  checkpoint: make(ROLE_HELPER.checkpoint)
})

export const REMINDERS: Readonly<Record<ReminderTemplateKind, ByRole>> = {
  "length-continue": same(
    "Your previous reply was cut off at the output length limit. Continue exactly from where you stopped. " +
      "Do not restate or summarise what you already wrote."
  ),
  "unfinished-stream": same(
    "Your previous reply ended without a finish signal (the stream was cut). Continue from where you stopped. " +
      "Do not restate what you already wrote."
  ),
  "think-only": withWayOut("Your previous reply contained only reasoning and no visible output."),
  invalid: withWayOut("Your previous reply was empty output: no text and no tool call."),
  "text-tool-call": same(
    "Your previous reply wrote a tool call as text markup; it was not executed and has been removed. " +
      "Call tools only through the structured tool-calling interface, never as XML, JSON or special tokens in your text."
  ),
  "dropped-tool-call": same(
    "Your previous reply announced a tool call, but no valid tool call arrived (it was probably malformed and dropped). " +
      "Call the tool again through the tool-calling interface with valid JSON arguments, or answer in text if no tool is needed."
  ),
  "structured-output": same(
    "A structured result is required. Call the structured-output tool with your result now; " +
      "a plain-text answer does not count."
  ),
  "text-repeat-remind": same(
    "Your output started repeating itself and was stopped. Do not repeat it. " +
      "Rephrase, use a different tool, or say plainly where you are stuck."
  ),
  "text-repeat-replan": same(
    "Your output repeated itself again and was stopped. You MUST completely replan before continuing: " +
      "state the goal, what you have tried, why it did not work, and a different approach. " +
      "If your output repeats once more, the session will be terminated."
  ),
  "text-loop-mild": same(
    "Your last few replies were identical. Repeating the same output will not make progress. " +
      "Look at the latest results and take a different next step."
  ),
  "text-loop-strong": byRole((helper) =>
    "You have produced the same output again. Abandon your current plan, explain why it failed, " +
      `and ask ${helper} for help. If you repeat the same output again, the session will be terminated.`
  ),
  "repeated-action": same(
    "Note: you are repeating the same action with the same arguments, and it is not producing new results. " +
      "Change your approach."
  ),
  // Said while the same call pages through something (each result new): telling a model that reads
  // page after page, or runs batch after batch, that nothing new comes back would be false.
  "repeated-action-paging": same(
    "Note: you have made the same call several times in a row, and each result was different (paging through " +
      "something, or work moving on). Go on if that is the plan; if you are looking for one thing, a search or a " +
      "filter may find it in fewer steps."
  ),
  // Said to a poll within its patience: waiting on a job that takes minutes is no loop yet.
  "repeated-action-polling": same(
    "Note: you have checked on the same job several times in a row. That is fine while it is still running; " +
      "if its answer stops changing for long, or says it failed, stop waiting and find out why."
  ),
  "action-cycle": same(
    "Note: you are cycling through the same few actions with the same arguments, and the cycle is not producing " +
      "new results. Break the cycle: decide what the results so far tell you, then take a different step."
  ),
  "loop-remind": byRole((helper) =>
    "You are still repeating yourself: the same actions or the same results, and nothing has changed. " +
      "Stop and take a substantially different approach, or ask " + helper + " for what you are missing. " +
      "If this goes on, the run will be stopped."
  ),
  "soft-cap": withWrapUp("Maximum steps reached. No tools are available for this final step."),
  summary: withWrapUp("The budget for this task is spent and the work stops here. No tools are available."),
  "breaker-degrade": same(
    "Several tool calls in a row have failed. Stop retrying the same thing. " +
      "First restate the goal in one sentence, then try another method."
  ),
  "breaker-reroute": same(
    "Tool calls kept failing, so a different model takes over from here. Read the latest results, " +
      "restate the goal in one sentence, then try a method that has not been tried yet."
  ),
  "breaker-cooldown": same(
    "Tool execution is paused for this step after repeated tool failures: a tool called now is not run. " +
      "Use this step to restate the goal, read the errors above and plan a different approach."
  )
}

export interface ReminderOptions {
  /** Appended on its own line: evidence such as the failing tool, the exit reason, a count. */
  readonly detail?: string
}

/** The reminder text of a kind for an agent role. */
export const reminderText = (kind: ReminderTemplateKind, role: AgentRole, opts: ReminderOptions = {}): string => {
  const base = REMINDERS[kind][role]
  return opts.detail !== undefined && opts.detail.length > 0 ? `${base}\n\n${opts.detail}` : base
}
