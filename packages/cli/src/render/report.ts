/**
 * The lines that close a turn: the exit line (how it ended, steps, tokens, cost, time) and, when
 * it did not complete, where it stopped and what to do next. Shared by run, demo and chat.
 */
import type { RunReport } from "@loopguard/effect"
import { exitWords, stepsFromOne } from "./explain.js"

export { stepsFromOne }
import type { Style } from "./style.js"
import { terminalSafe } from "./terminal-safe.js"

export interface Totals {
  readonly steps: number
  readonly tokens: number
  readonly costUsd: number | null
  readonly elapsedMs: number | null
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`

export const formatCost = (costUsd: number | null): string => (costUsd === null ? "price unknown" : `$${costUsd.toFixed(4)}`)

export const formatElapsed = (ms: number): string => (ms < 60_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`)

/**
 * `step 3 · 1,204 tokens · $0.0021 · 4.2 s`: the numbers every status line and exit line share.
 * An unknown price is said once, on the exit line, not on every step.
 */
export const formatTotals = (t: Totals, stepWord: "step" | "steps"): string =>
  [
    stepWord === "steps" ? plural(t.steps, "step") : `step ${t.steps}`,
    `${t.tokens.toLocaleString("en-US")} tokens`,
    ...(t.costUsd !== null || stepWord === "steps" ? [formatCost(t.costUsd)] : []),
    ...(t.elapsedMs !== null ? [formatElapsed(t.elapsedMs)] : [])
  ].join(" · ")

const HEAD: Readonly<Record<RunReport["status"], string>> = { completed: "done", paused: "paused", aborted: "stopped" }

/** The one exit line: `── done: finished with an answer (final) · 2 steps · 512 tokens · $0.0008 · 5.1 s`. */
export const exitLine = (r: RunReport, elapsedMs: number | null, style: Style): string => {
  const colour = r.status === "completed" ? style.green : r.status === "paused" ? style.cyan : style.red
  const totals = formatTotals({ steps: r.stepsUsed, tokens: r.tokens.total, costUsd: r.costUsd, elapsedMs }, "steps")
  // The reason's code follows the words (when they differ) so a log can be searched for it.
  const words = exitWords(r.reason)
  const code = words === r.reason.replace(/_/g, " ") ? "" : ` (${r.reason})`
  return `${colour(`── ${HEAD[r.status]}: ${words}${code}`)} ${style.dim(`· ${totals}`)}`
}

/** Lines of one field's text shown at most; a longer text (an HTML error page) ends with how many more there were. */
export const MAX_FIELD_LINES = 6

/**
 * `   label: text` as lines of the block. A text of several lines (a provider's error that quotes a
 * parser's message) keeps the block's shape: its later lines are indented under the field, blank
 * ones dropped, at most MAX_FIELD_LINES shown; never a line at column 0 that reads as a line of its own.
 */
export const fieldLines = (label: string, text: string): ReadonlyArray<string> => {
  const lines = terminalSafe(text).split("\n").map((l) => l.trim()).filter((l) => l !== "")
  const shown = lines.length > MAX_FIELD_LINES ? [...lines.slice(0, MAX_FIELD_LINES - 1), `… (${lines.length - MAX_FIELD_LINES + 1} more lines)`] : lines
  return [`   ${label}: ${shown[0] ?? ""}`, ...shown.slice(1).map((l) => `     ${l}`)]
}

/** What follows the exit line when the run did not complete, and where the session is kept. */
export const reportDetails = (r: RunReport, style: Style): ReadonlyArray<string> => {
  const lines: Array<string> = []
  // Error messages and tool inputs come from servers and the model: shown terminal-safe.
  // The error's tag follows in parentheses, as the reason's code does on the exit line: searchable.
  const tag = r.error ? ` (${terminalSafe(r.error.tag)})` : ""
  if (r.blockedAt && r.status !== "completed") lines.push(...fieldLines("stopped at", `${stepsFromOne(r.blockedAt)}${tag}`))
  else if (r.error) lines.push(...fieldLines("what went wrong", `${r.error.message}${tag}`))
  // The same failure in words for people, when it says more than the raw message.
  if (r.error?.uiMessage !== undefined && r.error.uiMessage !== r.error.message) lines.push(...fieldLines("in short", r.error.uiMessage))
  if (r.status !== "completed") {
    if (r.completed.length > 0) lines.push(...fieldLines("done so far", r.completed.slice(-5).join("; ")))
    lines.push(...fieldLines("next", r.suggestedNextStep))
  }
  if (r.savedAt) lines.push(style.dim(`   saved: ${terminalSafe(r.savedAt)}`))
  for (const sub of r.subagents ?? []) {
    const words = exitWords(sub.reason)
    lines.push(`   sub-agent ${terminalSafe(sub.sessionId)}: ${words} (${sub.reason}) after ${sub.stepsUsed} step${sub.stepsUsed === 1 ? "" : "s"}, ${sub.tokens.total.toLocaleString("en-US")} tokens (counted above)`)
  }
  return lines
}

/** The answer as plain text, for quiet mode and for anything that did not stream it. */
export const answerOf = (r: RunReport): string => r.finalText?.trim() ?? ""
