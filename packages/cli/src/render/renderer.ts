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
import { tallyChars, tokensOfTally, type CharTally } from "@loopguard/core/context"
import type { StreamPart, Usage } from "@loopguard/core/model"
import type { LoopguardEvent, RunReport } from "@loopguard/effect"
import { eventLine } from "./event-lines.js"
import { terminalSafe } from "./terminal-safe.js"
import { makeTextSink } from "./text-sink.js"
import { makeSessionSteps, type SessionStep } from "./session-steps.js"
import { answerOf, exitLine, formatTotals, reportDetails } from "./report.js"
import type { Style } from "./style.js"

export type OutputMode = "human" | "quiet" | "json"

/** A silence shorter than this is ordinary pacing, not worth a line. */
const SHOW_SILENCE_AFTER_MS = 3_000
const DEFAULT_STALL_LIMIT_MS = 480_000

/** `9 s`, `2 min 5 s`, `8 min`. */
export const formatSeconds = (ms: number): string => {
  const total = Math.floor(ms / 1000)
  if (total < 60) return `${total} s`
  const minutes = Math.floor(total / 60)
  const seconds = total % 60
  return seconds === 0 ? `${minutes} min` : `${minutes} min ${seconds} s`
}

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
  /**
   * The longest silence between two stream chunks before loopguard gives up (`stream.chunkTimeoutMs`):
   * a silent model is shown with how long it has been silent and this limit. Default 480000.
   */
  readonly stallLimitMs?: number
  /** Values never shown (the API key and other credentials of the environment), even when the model repeats them. */
  readonly secrets?: ReadonlyArray<string>
}

export interface Renderer {
  readonly onEvent: (event: LoopguardEvent) => void
  /** Every part the model streams (text and reasoning deltas, usage on finish). */
  readonly onPart: (part: StreamPart) => void
  /** A chunk of parts as the stream hands them on: the same as `onPart` for each, written out at once. */
  readonly onParts: (parts: ReadonlyArray<StreamPart>) => void
  readonly onReport: (report: RunReport) => void
  /** A line of the caller's own (pause menu, chat notes), placed after any open stream text. */
  readonly line: (text: string) => void
  /** A new user turn starts: the clock and the turn's totals restart. */
  readonly startTurn: () => void
  /** Redraws the live status line now (the timer calls it; tests too). */
  readonly refresh: () => void
}

/**
 * The turn's usage so far. While a step streams: the usage its reply reports, or what it streamed,
 * estimated; once it finished, the step's cost as the run's own meter counted it (`step.finished`
 * carries it: a step cut short is billed for its prompt too), so the step lines add up to the
 * exit line.
 */
const makeTurnMeter = (price: ModelPrice | null) => {
  /** The finished steps' tokens. */
  let settled = 0
  /** The step in progress: its attempts' reported or estimated tokens so far. */
  let provisional = 0
  let cost: number | null = price === null ? null : 0
  let streamed: CharTally = { cjk: 0, other: 0 }
  let reported = false
  return {
    add: (u: Usage) => {
      reported = true
      provisional += u.totalTokens ?? (u.inputTokens ?? 0) + (u.outputTokens ?? 0)
      const c = price === null ? null : costOf(u, price)
      cost = cost === null || c === null ? null : cost + c
    },
    /** Text, reasoning or a call's arguments the reply streamed. */
    see: (text: string) => {
      const t = tallyChars(text)
      streamed = { cjk: streamed.cjk + t.cjk, other: streamed.other + t.other }
    },
    /** An attempt at a step ended (or the next began): what it streamed counts if no usage came. */
    endAttempt: () => {
      if (!reported) provisional += tokensOfTally(streamed)
      streamed = { cjk: 0, other: 0 }
      reported = false
    },
    /** The step finished; `total`: what the run metered for it, when the event said. */
    settle: (total: number | undefined) => {
      settled += total ?? provisional
      provisional = 0
    },
    reset: () => {
      settled = 0
      provisional = 0
      cost = price === null ? null : 0
      streamed = { cjk: 0, other: 0 }
      reported = false
    },
    tokens: () => settled + provisional,
    cost: () => cost
  }
}

/**
 * A writer that can hold what it is given and pass it on as one piece: a long reply is tens of
 * thousands of deltas, and one write to the terminal or pipe per delta cost more than rendering.
 */
const makeHoldingOut = (out: (text: string) => void) => {
  let held: Array<string> | null = null
  return {
    out: (text: string) => void (held === null ? out(text) : held.push(text)),
    hold: () => void (held ??= []),
    release: () => {
      if (held === null) return
      const text = held.join("")
      held = null
      if (text !== "") out(text)
    }
  }
}

export const makeRenderer = (options: RendererOptions): Renderer => {
  const { style, mode } = options
  const now = options.now ?? (() => performance.now())
  const human = mode === "human"
  const writer = makeHoldingOut(options.out)
  const sink = makeTextSink(writer.out, style, options.secrets ?? [])
  const meter = makeTurnMeter(options.price)
  const sessions = makeSessionSteps()
  let turnStart = now()
  /** What the step waits for while nothing streams; shown on the live line. */
  let waitingFor: string | null = null
  let timer: ReturnType<typeof setInterval> | null = null

  /** When the model last sent anything (or the step last began to wait for it). */
  let lastHeardAt = now()
  /** A sub-agent's lines sit one indent deeper per level. */
  const indent = (at: SessionStep) => "  ".repeat(at.depth)
  /** The status line's words: the session's own step (a sub-agent's so marked), the turn's totals. */
  const totals = (at: SessionStep) =>
    `${at.depth > 0 ? "sub-agent " : ""}${formatTotals({ steps: at.step + 1, tokens: meter.tokens(), costUsd: meter.cost(), elapsedMs: now() - turnStart }, "step")}`
  /** While the model is silent: for how long, and when loopguard gives up (a tool's own time is not the model's silence). */
  const silence = (): string | null => {
    const quietMs = now() - lastHeardAt
    if (quietMs < SHOW_SILENCE_AFTER_MS || (waitingFor !== null && !waitingFor.startsWith("waiting for the model"))) return null
    return `the model has sent nothing for ${formatSeconds(quietMs)} (loopguard gives up after ${formatSeconds(options.stallLimitMs ?? DEFAULT_STALL_LIMIT_MS)} of silence)`
  }
  const refresh = () => {
    const at = sessions.current()
    if (options.live !== true || !human || at === null) return
    const quiet = silence()
    // Mid-reply, the line is only shown once the stream has gone quiet; it then starts below the text.
    if (waitingFor === null && quiet !== null) sink.liveBelow(style.dim(`${indent(at)}  · ${totals(at)} · ${quiet}`))
    else if (waitingFor !== null) sink.live(style.dim(`${indent(at)}  · ${totals(at)} · ${quiet ?? waitingFor}`))
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
    sink.eraseLive()
  }
  /** Keeps the renderer's idea of the step in time with the loop: in a step or not, waiting for what. */
  const track = (e: LoopguardEvent) => {
    if (e.type === "step.started") {
      meter.endAttempt()
      sessions.started(e.sessionId, e.step)
      waitingFor = "waiting for the model"
      lastHeardAt = now()
      startTimer()
    } else if (e.type === "tool.started") waitingFor = `running ${terminalSafe(e.name)}`
    else if (e.type === "tool.finished") {
      waitingFor = "waiting for the model"
      lastHeardAt = now()
    }
    else if (e.type === "step.finished") {
      meter.endAttempt()
      meter.settle(e.tokens?.total)
      sessions.finished(e.sessionId)
      // A sub-agent's step ended inside its parent's tool call, which still runs.
      waitingFor = sessions.current() === null ? null : "running a sub-agent"
      if (sessions.current() === null) stopTimer()
    } else if (e.type === "run.finished" && sessions.current() === null) stopTimer()
  }

  const onEvent = (e: LoopguardEvent): void => {
    if (!human) return
    track(e)
    const at = sessions.of(e.sessionId)
    if (e.type === "step.finished") {
      // Why a reply was stopped is told by the incident banner that follows.
      sink.line(style.dim(`${indent(at)}  · ${totals(at)}`))
      return
    }
    if (e.type === "run.finished") return sink.closeBlock()
    if (e.type === "step.started" && e.step === 0 && e.attempt === 1 && at.depth > 0) sink.line(style.dim(`${indent(at)}↳ sub-agent ${terminalSafe(e.sessionId ?? "")}`))
    const text = eventLine(e, style)
    if (text !== null) sink.line(`${indent(at)}${text}`)
  }

  // Only a step's own reply counts and shows: the goal gate's evaluator and summary calls are not the answer.
  const onPart = (p: StreamPart): void => {
    if (sessions.current() === null) return
    lastHeardAt = now()
    if (p.type === "finish" && p.usage !== undefined) return meter.add(p.usage)
    if (p.type === "text-delta" || p.type === "reasoning-delta") meter.see(p.text)
    else if (p.type === "tool-input-delta") meter.see(p.delta)
    if (!human) return
    if (p.type === "text-delta" || p.type === "reasoning-delta") {
      waitingFor = null
      sink.stream(p.type === "text-delta" ? "text" : "reasoning", p.text)
    } else if (p.type === "tool-input-start") waitingFor = `writing a ${terminalSafe(p.name)} call`
  }

  // Nothing stays held past the chunk: whatever else writes (events, the live line) comes after it.
  const onParts = (parts: ReadonlyArray<StreamPart>): void => {
    writer.hold()
    try {
      for (const p of parts) onPart(p)
    } finally {
      writer.release()
    }
  }

  const onReport = (r: RunReport): void => {
    if (mode === "json") return
    stopTimer()
    if (mode === "quiet") {
      const answer = terminalSafe(answerOf(r))
      if (answer !== "") sink.line(answer)
    }
    sink.line(exitLine(r, now() - turnStart, style))
    if (human) for (const l of reportDetails(r, style)) sink.line(l)
  }

  return {
    onEvent,
    onPart,
    onParts,
    onReport,
    line: (text) => {
      if (mode !== "json") sink.line(text)
    },
    refresh,
    startTurn: () => {
      sink.closeBlock()
      turnStart = now()
      meter.reset()
      sessions.reset()
    }
  }
}
