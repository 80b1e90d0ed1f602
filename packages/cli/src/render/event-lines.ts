/**
 * The line a person sees for one event that stands on its own: a tool call, its end, an incident,
 * a retry. Pure; the renderer decides where the line goes. Null: the event shows no line (it is
 * told by a banner or the streamed text, or only in `--json`).
 */
import type { LoopguardEvent } from "@loopguard/effect"
import { explainIncident, explainRetry, explainTerminal, type Tone } from "./explain.js"
import type { Style } from "./style.js"
import { terminalSafe } from "./terminal-safe.js"

const short = (v: unknown, n: number): string => {
  const s = terminalSafe(typeof v === "string" ? v : (JSON.stringify(v) ?? ""))
  return s.length > n ? s.slice(0, n - 1) + "…" : s
}

/** A tool input as a person would type it: the command for a shell, the path for a file tool. */
export const describeInput = (input: unknown): string => {
  if (input !== null && typeof input === "object") {
    const o = input as Record<string, unknown>
    for (const key of ["command", "path", "query", "url"]) if (typeof o[key] === "string") return short(o[key], 90)
  }
  return short(input, 90)
}

export const banner = (style: Style, tone: Tone, text: string): string => {
  const paint = tone === "stop" ? style.red : tone === "pause" ? style.cyan : tone === "ok" ? style.green : style.yellow
  const mark = tone === "stop" ? "✗" : tone === "pause" ? "⏸" : tone === "ok" ? "✓" : "!"
  // Banners quote the model and the server (an evaluator's reason, an error message).
  return paint(`  ${mark} loopguard: ${terminalSafe(text)}`)
}

export const eventLine = (e: LoopguardEvent, style: Style): string | null => {
  switch (e.type) {
    case "tool.started":
      // The tool's name is the model's choice too: it could carry an escape sequence.
      return `  ${style.bold("⚙")} ${short(e.name, 60)} ${style.dim(describeInput(e.input))}`
    case "tool.finished": {
      const ok = e.state === "completed" && (e.exitCode === undefined || e.exitCode === 0)
      const what = e.state === "error" ? "error" : e.exitCode !== undefined ? `exit ${e.exitCode}` : "done"
      return `    ${ok ? style.green("✓") : style.red("✗")} ${what} ${style.dim(`(${Math.round(e.durationMs)} ms)`)}`
    }
    case "incident": {
      const x = explainIncident(e)
      return banner(style, x.tone, x.text)
    }
    case "session.retry.attempt":
      return banner(style, "note", explainRetry(e))
    case "session.retry.terminal":
      return banner(style, "stop", explainTerminal(e))
    case "step.started":
      return e.attempt > 1 ? style.dim(`  (step ${e.step + 1}, attempt ${e.attempt})`) : null
    default:
      return null
  }
}
