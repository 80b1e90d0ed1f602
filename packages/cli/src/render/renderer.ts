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
import { eventLine } from "./event-lines.js"
import { makeStreamRedactor, redactText } from "./env-secrets.js"
import { terminalSafe } from "./terminal-safe.js"
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
  /**
   * A terminal: while nothing streams (waiting for the model, a tool running) a status line is
   * kept up to date in place every `liveEveryMs`, and erased before anything else is written.
   */
  readonly live?: boolean
  readonly liveEveryMs?: number
  /** Values never shown (the API key and other credentials of the environment), even when the model repeats them. */
  readonly secrets?: ReadonlyArray<string>
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
  /** Redraws the live status line now (the timer calls it; tests too). */
  readonly refresh: () => void
}

const ERASE_LINE = "\r\u001b[2K"

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
  let step = 0
  /** What the step waits for while nothing streams; shown on the live line. */
  let waitingFor: string | null = null
  let liveShown = false
  let timer: ReturnType<typeof setInterval> | null = null

  const eraseLive = () => {
    if (liveShown) out(ERASE_LINE)
    liveShown = false
  }
  const write = (text: string) => {
    if (text === "") return
    eraseLive()
    out(text)
    atLineStart = text.endsWith("\n")
  }
  const totals = () => formatTotals({ steps: step + 1, tokens: turnTokens, costUsd: turnCost, elapsedMs: now() - turnStart }, "step")
  const refresh = () => {
    if (options.live !== true || !human || !inStep || !atLineStart || waitingFor === null) return
    out(`${ERASE_LINE}${style.dim(`  · ${totals()} · ${waitingFor}`)}`)
    liveShown = true
  }
  const startTimer = () => {
    if (options.live !== true || timer !== null) return
    timer = setInterval(refresh, options.liveEveryMs ?? 1000)
    // Never what keeps the process alive.
    timer.unref?.()
  }
  const stopTimer = () => {
    if (timer !== null) clearInterval(timer)
    timer = null
    eraseLive()
  }
  const secrets = options.secrets ?? []
  const redactor = makeStreamRedactor(secrets)
  // Dim each piece on its own: a line break inside a delta must not leave the terminal dimmed.
  const styled = (kind: "text" | "reasoning", text: string) => (kind === "reasoning" ? text.split("\n").map(style.dim).join("\n") : text)
  /** What the redactor held back (the tail that could have begun a secret) goes out with its block. */
  const flushStream = () => {
    const rest = terminalSafe(redactor.flush())
    if (rest !== "" && block !== "none") write(styled(block, rest))
  }
  const closeBlock = () => {
    flushStream()
    if (!atLineStart) write("\n")
    block = "none"
  }
  const line = (text: string) => {
    closeBlock()
    write(redactText(text, secrets) + "\n")
  }
  const stream = (kind: "text" | "reasoning", raw: string) => {
    if (block !== kind) {
      closeBlock()
      block = kind
      if (kind === "reasoning") write(style.dim("thinking: "))
    }
    write(styled(kind, terminalSafe(redactor.push(raw))))
  }
  /** Keeps the renderer's idea of the step in time with the loop: in a step or not, waiting for what. */
  const track = (e: LoopguardEvent) => {
    if (e.type === "step.started") {
      inStep = true
      step = e.step
      waitingFor = "waiting for the model"
      startTimer()
    } else if (e.type === "tool.started") waitingFor = `running ${e.name}`
    else if (e.type === "tool.finished") waitingFor = "waiting for the model"
    else if (e.type === "step.finished") {
      inStep = false
      waitingFor = null
      stopTimer()
    } else if (e.type === "run.finished") stopTimer()
  }

  const onEvent = (e: LoopguardEvent): void => {
    if (!human) return
    track(e)
    if (e.type === "step.finished") {
      // Why a reply was stopped is told by the incident banner that follows.
      line(style.dim(`  · ${totals()}`))
      return
    }
    if (e.type === "run.finished") return closeBlock()
    const text = eventLine(e, style)
    if (text !== null) line(text)
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
    if (p.type === "text-delta" || p.type === "reasoning-delta") waitingFor = null
    if (p.type === "text-delta") stream("text", p.text)
    else if (p.type === "reasoning-delta") stream("reasoning", p.text)
    // After a stretch of text the wait is for the model again (e.g. a tool call being written).
    else if (p.type === "tool-input-start") waitingFor = `writing a ${p.name} call`
  }

  const onReport = (r: RunReport): void => {
    if (mode === "json") return
    stopTimer()
    closeBlock()
    if (mode === "quiet") {
      const answer = terminalSafe(redactText(answerOf(r), secrets))
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
    refresh,
    startTurn: () => {
      closeBlock()
      turnStart = now()
      turnTokens = 0
      turnCost = options.price === null ? null : 0
    }
  }
}
