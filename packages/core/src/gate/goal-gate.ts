/**
 * The goal gate (docs/run-loop.md) and the completion check (against a false claim of completion): when the model wants
 * to stop, an evaluator (a separate tool-less model call) or a command (the tests) decides whether
 * the goal is met; if not, the evidence goes back to the model and the loop continues.
 * Pure text in, text out; the Effect layer makes the calls.
 */

export type GoalVerdict = { readonly met: boolean; readonly reason: string; readonly understood: boolean }

export const GOAL_GATE_SYSTEM =
  "You are a strict evaluator of an AI agent's work. You do not solve the task; you judge whether the agent's final " +
  "answer fully meets the user's goal. Reply with exactly one first line, MET or NOT MET, then one short paragraph " +
  "saying why and, if NOT MET, what is still missing."

/** The evaluator prompt: the user's goal, the final answer and the work done. */
export const goalGatePrompt = (goal: string, answer: string, work: ReadonlyArray<string>): string =>
  [
    `User's goal:\n${goal.trim()}`,
    work.length > 0 ? `What the agent did (tool calls):\n${work.map((w) => `- ${w}`).join("\n")}` : "The agent made no tool calls.",
    `The agent's final answer:\n${answer.trim() || "(empty)"}`,
    "Is the goal met? First line: MET or NOT MET."
  ].join("\n\n")

/**
 * Reads the evaluator's reply. Never throws. Only a clear NOT MET (or "not met", "unmet", "no")
 * keeps the loop going: an evaluator that rambles must not hold a finished run hostage.
 */
export const parseGoalVerdict = (text: string): GoalVerdict => {
  const trimmed = text.trim()
  const first = (trimmed.split("\n")[0] ?? "").trim().replace(/^[#*`>\s_-]+|[*`.:!\s_]+$/g, "").toLowerCase()
  const rest = trimmed.split("\n").slice(1).join("\n").trim()
  const reason = rest !== "" ? rest : trimmed
  if (/^(not met|not yet met|unmet|no)\b/.test(first)) return { met: false, reason, understood: true }
  if (/^(met|yes|goal met|done)\b/.test(first)) return { met: true, reason, understood: true }
  return { met: true, reason: trimmed === "" ? "the evaluator gave no verdict" : trimmed, understood: false }
}

/** What the agent is told when the goal gate judges its answer NOT MET. */
export const goalGateFeedback = (reason: string): string =>
  `An independent evaluator checked your final answer against the user's goal and judged it NOT met:\n${reason.trim()}\n\n` +
  "Keep working until the goal is met, then give your final answer again."

const tail = (text: string, max = 3000): string => (text.length > max ? "…" + text.slice(-max) : text)

/** What the agent is told when the completion check command fails (its exit code and output tail). */
export const completionCheckFeedback = (command: string, exitCode: number | null, output: string): string =>
  `Before accepting your answer, the completion check \`${command}\` was run and it failed` +
  `${exitCode !== null ? ` (exit ${exitCode})` : ""}:\n\n${tail(output.trim()) || "(no output)"}\n\n` +
  "The work is not done. Fix what the check reports, then give your final answer again."
