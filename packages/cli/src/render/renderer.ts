/**
 * The one renderer of `run`, `demo` and `chat`. Three modes:
 * - human: the reply streams as it comes (reasoning dimmed), tools and their results, a banner in
 *   plain words for everything loopguard did, a status line after each step, an exit line;
 * - quiet: only the answer and the exit line;
 * - json: nothing here (the caller prints JSON Lines).
 * On a terminal with colour the banners are coloured; piped, the same lines come without escape
 * codes, carriage returns or live counters, so the text is stable to read and to grep.
 */
import { costOf, type ModelPrice } from "@loopguard/core/caps"
import type { StreamPart } from "@loopguard/core/model"
import type { LoopguardEvent, RunReport } from "@loopguard/effect"
import { explainIncident, explainRetry, explainTerminal, type Tone } from "./explain.js"
import { answerOf, exitLine, formatTotals, reportDetails } from "./report.js"
import type { Style } from "./style.js"

export type OutputMode = "human" | "quiet" | "json"

export interface RendererOptions {
  readonly mode: OutputMode
  readonly style: Style
  /** Writes text as is (no newline added). */
  readonly out: (text: string) => void
  /** Prices the status line's cost; null = unknown price. */
  readonly price: ModelPrice | null
  /** Milliseconds since some origin (tests pass a fake clock). */
  readonly now?: () => number
}

export interface Renderer {
  readonly onEvent: (event: LoopguardEvent) => void
  /** Every part the model streams (text and reasoning deltas, usage on finish). */
  readonly onPart: (part: StreamPart) => void
  readonly onReport: (report: RunReport) => void
  /** A line of the caller's own (pause menu, chat notes), placed after any open stream text. */
  readonly line: (text: string) => void
  /** A new user turn starts: the clock and the turn's totals restart. */
  readonly startTurn: () => void
}

const short = (v: unknown, n: number): string => {
  const s = typeof v === "string" ? v : JSON.stringify(v) ?? ""
  return s.length > n ? s.slice(0, n - 1) + "…" : s
}

/** A tool input as a person would type it: the command for a shell, the path for a file tool. */
const describeInput = (input: unknown): string => {
  if (input !== null && typeof input === "object") {
    const o = input as Record<string, unknown>
    for (const key of ["command", "path", "query", "url"]) if (typeof o[key] === "string") return short(o[key], 90)
  }
  return short(input, 90)
}

const banner = (style: Style, tone: Tone, text: string): string => {
  const paint = tone === "stop" ? style.red : tone === "pause" ? style.cyan : tone === "ok" ? style.green : style.yellow
  const mark = tone === "stop" ? "✗" : tone === "pause" ? "⏸" : tone === "ok" ? "✓" : "!"
  return paint(`  ${mark} loopguard: ${text}`)
}

export const makeRenderer = (options: RendererOptions): Renderer => {
  const { style, out, mode } = options
  const now = options.now ?? (() => performance.now())
  const human = mode === "human"
  /** What the open stream block is: nothing, the model's text, or its reasoning. */
  let block: "none" | "text" | "reasoning" = "none"
  let atLineStart = true
  let inStep = false
  let turnStart = now()
  let turnTokens = 0
  let turnCost: number | null = options.price === null ? null : 0

  const write = (text: string) => {
    if (text === "") return
    out(text)
    atLineStart = text.endsWith("\n")
  }
  const closeBlock = () => {
    if (!atLineStart) write("\n")
    block = "none"
  }
  const line = (text: string) => {
    closeBlock()
    write(text + "\n")
  }
  const stream = (kind: "text" | "reasoning", text: string) => {
    if (block !== kind) {
      closeBlock()
      block = kind
      if (kind === "reasoning") write(style.dim("thinking: "))
    }
    // Dim each piece on its own: a line break inside a delta must not leave the terminal dimmed.
    write(kind === "reasoning" ? text.split("\n").map(style.dim).join("\n") : text)
  }
  const status = (step: number) =>
    line(style.dim(`  · ${formatTotals({ steps: step + 1, tokens: turnTokens, costUsd: turnCost, elapsedMs: now() - turnStart }, "step")}`))

  const onEvent = (e: LoopguardEvent): void => {
    if (!human) return
    switch (e.type) {
      case "step.started":
        inStep = true
        if (e.attempt > 1) line(style.dim(`  (step ${e.step + 1}, attempt ${e.attempt})`))
        return
      case "step.finished":
        inStep = false
        // Why a reply was stopped is told by the incident banner that follows.
        status(e.step)
        return
      case "tool.started":
        line(`  ${style.bold("⚙")} ${e.name} ${style.dim(describeInput(e.input))}`)
        return
      case "tool.finished": {
        const ok = e.state === "completed" && (e.exitCode === undefined || e.exitCode === 0)
        const what = e.state === "error" ? "error" : e.exitCode !== undefined ? `exit ${e.exitCode}` : "done"
        line(`    ${ok ? style.green("✓") : style.red("✗")} ${what} ${style.dim(`(${Math.round(e.durationMs)} ms)`)}`)
        return
      }
      case "incident": {
        const x = explainIncident(e)
        line(banner(style, x.tone, x.text))
        return
      }
      case "session.retry.attempt":
        line(banner(style, "note", explainRetry(e)))
        return
      case "session.retry.terminal":
        line(banner(style, "stop", explainTerminal(e)))
        return
      case "run.finished":
        closeBlock()
        return
      default:
        // step.classified, recovery, stream.progress, session.status: shown through the
        // incident banners and the streamed text, or only in --json.
        return
    }
  }

  const onPart = (p: StreamPart): void => {
    if (p.type === "finish" && p.usage !== undefined) {
      const u = p.usage
      turnTokens += u.totalTokens ?? (u.inputTokens ?? 0) + (u.outputTokens ?? 0)
      const c = options.price === null ? null : costOf(u, options.price)
      turnCost = turnCost === null || c === null ? null : turnCost + c
      return
    }
    // Only a step's own reply is shown: the goal gate's evaluator and summary calls are not the answer.
    if (!human || !inStep) return
    if (p.type === "text-delta") stream("text", p.text)
    else if (p.type === "reasoning-delta") stream("reasoning", p.text)
  }

  const onReport = (r: RunReport): void => {
    if (mode === "json") return
    closeBlock()
    if (mode === "quiet") {
      const answer = answerOf(r)
      if (answer !== "") write(answer + "\n")
    }
    line(exitLine(r, now() - turnStart, style))
    if (human) for (const l of reportDetails(r, style)) line(l)
  }

  return {
    onEvent,
    onPart,
    onReport,
    line: (text) => {
      if (mode !== "json") line(text)
    },
    startTurn: () => {
      closeBlock()
      turnStart = now()
      turnTokens = 0
      turnCost = options.price === null ? null : 0
    }
  }
}
