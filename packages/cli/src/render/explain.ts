/**
 * What loopguard did, in plain words. Every incident becomes one sentence a person can act on:
 * what was seen, then what loopguard did about it. No detector name or class label is shown
 * without this explanation; the machine names stay in `--json` and in traces.
 */

/** How a banner is coloured: a note (the run goes on), a stop, a pause waiting for a choice. */
export type Tone = "note" | "stop" | "pause" | "ok"

export interface Explanation {
  readonly tone: Tone
  readonly text: string
}

export interface IncidentLike {
  readonly detector: string
  readonly action: string
  readonly detail: unknown
}

const field = (detail: unknown, key: string): unknown =>
  detail !== null && typeof detail === "object" ? (detail as Record<string, unknown>)[key] : undefined
const num = (detail: unknown, key: string): number | null => {
  const v = field(detail, key)
  return typeof v === "number" ? v : null
}
const str = (detail: unknown, key: string): string | null => {
  const v = field(detail, key)
  return typeof v === "string" && v !== "" ? v : null
}
const times = (n: number | null) => (n === null || n < 2 ? "again and again" : `${n} times`)
const clip = (s: string, n: number) => (s.length > n ? s.slice(0, n - 1) + "…" : s)

/** Why a run ended, for the exit line and for `exit:…` incidents. */
export const EXIT_WORDS: Readonly<Record<string, string>> = {
  final: "finished with an answer",
  max_steps: "reached the step limit",
  budget_exhausted: "a token, cost or step budget ran out",
  budget_tokens: "the token budget ran out",
  budget_cost: "the cost budget ran out",
  protocol: "the provider broke the streaming protocol",
  depth_limit: "a sub-agent went deeper than allowed",
  text_repeat: "the reply kept repeating itself",
  text_loop: "the model kept saying and doing the same thing",
  try_best_paused: "the same approach kept failing",
  output_length: "replies kept stopping before they were done (the output length limit, or streams without a finish reason)",
  content_filter: "the provider's content filter stopped the reply",
  model_error: "the model or the provider failed",
  circuit_open: "tools kept failing, so loopguard handed the work back",
  cancelled: "cancelled",
  timeout: "a step took too long",
  time_limit: "the run's time limit was reached",
  idle: "the agent kept repeating itself after a note and a reminder",
  rollback_cap: "too many replies had to be thrown away in a row",
  dropped_tool_call: "the model kept announcing tool calls without making them",
  think_only: "the model kept thinking without answering",
  invalid_output: "the model kept giving empty or unusable replies",
  text_tool_call: "the model kept writing tool calls as text",
  structured_output: "the structured result was given",
  doom_loop: "the same tool call was repeated within one reply (doom loop)",
  goal_gate_cap: "the evaluator kept judging the goal not met",
  completion_check_failed: "the completion check kept failing"
}

export const exitWords = (reason: string): string => EXIT_WORDS[reason] ?? reason.replace(/_/g, " ")

/** Reminders loopguard sends as a user turn: what it saw, what it asked of the model. */
const REMINDERS: Readonly<Record<string, string>> = {
  "text-repeat-remind": "The reply was cut for repeating itself; loopguard asked the model to stop repeating and carry on.",
  "text-repeat-replan": "The reply was cut for repeating itself again; loopguard asked the model to step back and make a new plan.",
  "think-only": "The model only thought and gave no answer or action; loopguard reminded it to answer or use a tool.",
  invalid: "The reply was empty or unusable; loopguard asked the model to try again.",
  "text-tool-call": "The model wrote a tool call as plain text instead of calling the tool; loopguard left that reply out and reminded it how to call tools.",
  "dropped-tool-call": "The model said it would use a tool but made no call; loopguard reminded it to make the call.",
  "length-continue": "The reply hit the output length limit; loopguard asked the model to continue where it stopped.",
  "unfinished-stream": "The reply ended without saying it was finished; loopguard asked the model to continue.",
  "structured-output": "The model answered without the structured result; loopguard reminded it to give one.",
  "soft-cap": "The run is close to its limit; loopguard asked the model to wrap up.",
  summary: "A limit was reached; loopguard asked the model for a summary of where it got to.",
  "breaker-degrade": "Tools kept failing; loopguard asked the model to slow down and check its approach."
}

const COMPACTION: Readonly<Record<string, Explanation>> = {
  compacted: { tone: "note", text: "The history outgrew the context; loopguard summarised the older steps and kept the recent ones." },
  skipped: { tone: "note", text: "The history is near the context limit, but there was nothing older than the kept steps to summarise." },
  failed: { tone: "note", text: "The history outgrew the context and summarising it failed; loopguard went on with the full history." },
  cap: { tone: "note", text: "The history outgrew the context again, but the compaction limit was reached; loopguard summarises no more." }
}

const ROLLBACK_CAUSES: Readonly<Record<string, string>> = {
  refusal: "The model refused",
  "format-leak": "The reply leaked raw tool-call markup",
  "duplicate-query": "The model repeated a search it had already made",
  "useless-result": "A tool gave a useless result"
}

/** What follows a Try-Best note: only the same failing command, run again after the note, pauses. */
const TRY_BEST_NOTES: Readonly<Record<string, string>> = {
  "bash-retry": "loopguard told the model to change its approach; the turn is paused if the command fails again.",
  "edit-repeat": "loopguard told the model so (a note only, it never pauses for this).",
  "action-streak": "loopguard told the model so (a note only, it never pauses for this)."
}

/** Reports count steps from 0 (as traces do); people, and the status lines, count from 1. */
export const stepsFromOne = (text: string): string =>
  text
    .replace(/\bsteps (\d+(?:(?:-|, )\d+)+)\b/g, (_, list: string) => `steps ${list.replace(/\d+/g, (n) => String(Number(n) + 1))}`)
    .replace(/\bstep (\d+)\b/g, (_, n: string) => `step ${Number(n) + 1}`)

const tryBestWords = (detector: string, detail: unknown): string => {
  // Detectors start their detail with their own kind ("bash_retry: …"): a label, not words. Their
  // step numbers count from 0, as the report's do; the lines around the banner count from 1.
  const raw = str(detail, "detail")?.replace(/^[a-z][a-z_-]*:\s*/, "") ?? null
  const said = raw === null ? null : stepsFromOne(raw)
  const what = said !== null ? clip(said, 160) : `the same approach kept failing (${detector.replace(/-/g, " ")})`
  return `${what.charAt(0).toUpperCase()}${what.slice(1)}${/[.!?]$/.test(what) ? "" : "."}`
}

/** A loop detector's rung of the ladder (note, remind, stop) in words, after what it saw. */
const ladderStep = (seen: string, action: string): Explanation => {
  if (action === "note") return { tone: "note", text: `${seen}; loopguard gave the model a note about it.` }
  if (action === "remind") return { tone: "note", text: `${seen}; loopguard reminded the model to try something else.` }
  if (action === "stop") return { tone: "stop", text: `${seen}; loopguard stopped the run.` }
  return { tone: "note", text: `${seen}; loopguard is watching it (no action yet).` }
}

/** One incident in plain words. Unknown detectors still get a readable, honest sentence. */
export const explainIncident = (i: IncidentLike): Explanation => {
  const { detector, action, detail } = i
  if (action.startsWith("exit:")) return { tone: "stop", text: `The run ended: ${exitWords(action.slice(5))}.` }
  if (action === "pause") return { tone: "pause", text: `${tryBestWords(detector, detail)} loopguard paused the turn so you can choose what happens next.` }
  if (action === "note" && TRY_BEST_NOTES[detector] !== undefined) return { tone: "note", text: `${tryBestWords(detector, detail)} ${TRY_BEST_NOTES[detector]}` }
  const reminder = REMINDERS[action]
  if (reminder !== undefined) return { tone: "note", text: reminder }
  switch (detector) {
    case "text-repeat":
      return { tone: "note", text: `The reply started repeating itself${num(detail, "period") !== null ? ` (a block of ${num(detail, "period")} words over and over)` : ""}; loopguard cut the stream there.` }
    case "text-loop":
      if (action === "terminate") return { tone: "stop", text: `The model said and did the same thing ${times(num(detail, "count"))}; loopguard ended the run.` }
      return {
        tone: "note",
        text: `The model said and did the same thing ${times(num(detail, "count"))}; loopguard ${action === "strong" ? "told it firmly to change approach" : "reminded it that it is going in circles"}.`
      }
    case "repeated-action":
      return ladderStep(`The same tool call was made ${times(num(detail, "count"))} in a row`, action)
    case "action-cycle":
      return ladderStep(`The model is cycling through the same ${num(detail, "period") ?? "few"} actions`, action)
    case "repeated-observation":
      return ladderStep(`The same answer came back ${times(num(detail, "count"))}`, action)
    case "repeated-failure":
      return ladderStep(`The same command failed the same way ${times(num(detail, "count"))}`, action)
    case "varied-retry":
      return ladderStep(`The same command was retried with small changes ${times(num(detail, "count"))}`, action)
    case "failure-streak":
      return ladderStep(`${num(detail, "count") ?? "Many"} steps in a row failed`, action)
    case "replayed-sequence":
      return ladderStep("The model went through the same sequence of steps again", action)
    case "no-progress-spin":
      return ladderStep("No file changed for a while and most steps repeated earlier ones", action)
    case "tool-arguments":
      return { tone: "note", text: "A call's arguments were cut off or unclear; loopguard did not run it and told the model why." }
    case "tools-paused":
      return { tone: "note", text: `A call to ${str(detail, "tool") ?? "a tool"} came while tools were paused (a cool-down, or a step meant for an answer); loopguard did not run it.` }
    case "text-tool-call":
      if (action === "executed") return { tone: "note", text: "The model wrote a tool call as text; loopguard ran it as the call it names." }
      if (action === "would-execute") return { tone: "note", text: "The model wrote a tool call as text; loopguard would run it as the call it names (shadow mode)." }
      break
    case "streak-crop":
      return action === "cache-risk"
        ? { tone: "note", text: "Many replies were dropped from the model's view; the provider's prompt cache may miss more often." }
        : { tone: "note", text: "A run of near-identical replies was dropped from what the model sees next (they stay in the session)." }
    case "doom-loop":
      return action === "permission-granted"
        ? { tone: "note", text: "The same tool call came three times in one reply; you allowed it to run again." }
        : { tone: "stop", text: "The same tool call came three times in one reply; loopguard refused to run it again and failed the step." }
    case "rollback": {
      const cause = ROLLBACK_CAUSES[str(detail, "kind") ?? ""] ?? "The reply was unusable"
      return action === "end-loop"
        ? { tone: "stop", text: `${cause}, too many times in a row; loopguard ended the run.` }
        : { tone: "note", text: `${cause}; loopguard threw that reply away and retried the step (no turn spent).` }
    }
    case "budget":
      return { tone: "stop", text: `A budget ran out${str(detail, "reason") !== null ? ` (${str(detail, "reason")})` : ""}; loopguard stopped the run.` }
    case "timeout":
      return { tone: "stop", text: `A step took longer than ${Math.round((num(detail, "stepTimeoutMs") ?? 0) / 1000)} s; loopguard stopped it.` }
    case "breaker":
      if (action === "hand-back") return { tone: "stop", text: "Tools kept failing; loopguard stopped and handed the work back to you." }
      if (action === "model-switched") return { tone: "note", text: `Tools kept failing; loopguard switched to the fallback model ${str(detail, "to") ?? ""}`.trimEnd() + "." }
      return { tone: "note", text: "Tools kept failing; loopguard asked the model to slow down and check its approach." }
    case "completion-check":
      return action === "passed"
        ? { tone: "ok", text: `The completion check \`${str(detail, "command") ?? "?"}\` passed.` }
        : { tone: "note", text: `The completion check \`${str(detail, "command") ?? "?"}\` failed; loopguard sent the model back to work.` }
    case "goal-gate":
      return action === "not-met"
        ? { tone: "note", text: `An evaluator judged the goal not met${str(detail, "reason") !== null ? ` ("${clip(str(detail, "reason")!, 100)}")` : ""}; loopguard sent the model back to work.` }
        : { tone: "ok", text: "An evaluator judged the goal met." }
    case "repair":
      return { tone: "note", text: `A call to ${str(detail, "tool") ?? "a tool"} had malformed arguments; loopguard repaired them before running it.` }
    case "step-cap":
      return { tone: "stop", text: `The run used all its steps${str(detail, "used") !== null ? ` (${str(detail, "used")})` : ""}; loopguard stopped it.` }
    case "time-limit":
      return { tone: "stop", text: "The run reached its wall-clock limit (loop.maxWallMs); loopguard cancelled the running step and stopped." }
    case "cancel":
      return { tone: "stop", text: "Cancelled; loopguard interrupted the running step and its tools." }
    case "compaction":
      return COMPACTION[action] ?? { tone: "note", text: "The history is near the context limit; loopguard tried to summarise older steps." }
    case "subagent":
      return action === "stop" && str(detail, "reason") === "depth_limit"
        ? { tone: "stop", text: "A sub-agent asked for another sub-agent beyond the depth limit; loopguard refused." }
        : { tone: action === "final" ? "ok" : "note", text: `A sub-agent ended its sub-task: ${exitWords(action)}; its report is part of this run.` }
    case "resume":
      if (action === "interrupted-call")
        return { tone: "note", text: `A call to ${str(detail, "tool") ?? "a tool"} was cut off when the session stopped; loopguard tells the model it may or may not have taken effect.` }
      return {
        tone: action === "reexamined:exit" ? "stop" : "note",
        text: `Resuming, loopguard looked at the last reply again: ${action === "reexamined:exit" ? "it still ends the run" : action === "reexamined:final" ? "it stands as the answer" : action === "reexamined:request" ? "it failed half-way, so it is left out and the model is asked again" : "the model is reminded before it goes on"}.`
      }
    case "tool-cap":
      return { tone: "note", text: `${str(detail, "tool") ?? "A tool"} was called more times than allowed (toolCaps); loopguard answered the call without running it.` }
    case "tool-less-step":
      return { tone: "note", text: `The model called ${str(detail, "tool") ?? "a tool"} in a step meant for a plain answer; loopguard did not run it.` }
  }
  if (action === "warn") return { tone: "note", text: `Warning: ${tryBestWords(detector, detail)}` }
  return { tone: "note", text: `loopguard noticed ${detector.replace(/[-_]/g, " ")} and took action "${action}".` }
}

const RETRY_KINDS: Readonly<Record<string, string>> = {
  rate_limit: "The provider is rate limiting",
  server: "The provider had a server error",
  network: "The network connection failed",
  // Also a chunk that is not JSON (the stream was whole, but could not be read).
  stream: "The reply's stream broke off or could not be read",
  unknown: "The provider failed"
}

export const explainRetry = (e: { readonly kind: string; readonly attempt: number; readonly maxRetries: number | null; readonly delayMs: number }): string =>
  `${RETRY_KINDS[e.kind] ?? "The request failed"}; loopguard waits ${(e.delayMs / 1000).toFixed(1)} s and tries again (attempt ${e.attempt}${e.maxRetries !== null ? ` of ${e.maxRetries}` : ""}).`

/** A provider's message of several lines, on the one line of a banner. */
const oneLine = (s: string) => s.replace(/\s*\n\s*/g, " ").trim()

export const explainTerminal = (e: { readonly kind: string; readonly message: string; readonly uiMessage?: string | undefined }): string =>
  e.uiMessage !== undefined
    ? `${e.uiMessage} (${clip(oneLine(e.message), 120)})`
    : `${RETRY_KINDS[e.kind] ?? "The request failed"} and retrying would not help: ${clip(oneLine(e.message), 120)}`
