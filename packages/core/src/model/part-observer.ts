/**
 * The synchronous half of one attempt: every stream part goes through `observe` in a plain loop
 * (no Effect per part). It folds the part into the reply, counts tokens, asks the monitors, and
 * says whether the stream must stop or a tool call must run. Progress events are coalesced here:
 * at most one per `intervalMs`, and none while nobody listens.
 */
import type { ReplyBuilder } from "./reply-builder.js"
import type { NormalizedError, StreamPart } from "./stream.js"

/** Approximate token count for the live counter: words, with each CJK character its own. */
export const countWords = (text: string): number => {
  let n = 0
  let inWord = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c <= 32) inWord = false
    else if (c >= 0x3000 && c <= 0xffef) n += 1
    else if (!inWord) ((inWord = true), (n += 1))
  }
  return n
}

/**
 * What the observer asks of an in-stream monitor: a trip (of the host's own shape) or null, per
 * text, reasoning or tool-argument delta and at the stream's end. The effect package's `StreamMonitor` is one.
 */
export interface PartMonitor<Trip> {
  readonly onPart?: (part: StreamPart) => Trip | null
  readonly onEnd?: () => Trip | null
}

export interface ProgressOptions {
  readonly intervalMs: number
  /** Someone receives events now (see `Events.listening`). */
  readonly listening: () => boolean
  readonly now: () => number
}

export interface Progress {
  readonly tokens: number
  /** The text and reasoning streamed since the previous progress event. */
  readonly text: string
}

/** What the caller must do after a part: go on, stop consuming, or run the part's tool call. */
export type Observed = "go" | "stop" | "tool"

/**
 * Watches one attempt's stream part by part (`observe`): builds the reply, asks the monitors, and
 * keeps the first monitor's trip and the stream's error for the caller to act on.
 */
export class PartObserver<Trip> {
  trip: Trip | null = null
  streamError: NormalizedError | null = null
  /** A tool-call event arrived (its tool ran): the step is no longer replay-safe. */
  toolCalled = false
  tokens = 0
  private announcedTokens = 0
  private announcedAt = Number.NEGATIVE_INFINITY
  /** Text since the last progress event, appended as a rope (flattened once, when an event takes it). */
  private pendingText = ""

  constructor(
    readonly reply: ReplyBuilder,
    private readonly monitors: ReadonlyArray<PartMonitor<Trip>>,
    private readonly progress: ProgressOptions
  ) {}

  observe(part: StreamPart): Observed {
    if (part.type === "error") {
      this.streamError = { ...part.error, phase: this.reply.started ? "stream" : "request" }
      return "stop"
    }
    this.reply.push(part)
    if (part.type === "text-delta" || part.type === "reasoning-delta") {
      this.tokens += countWords(part.text)
      this.pendingText += part.text
      return this.asked(part)
    }
    // A call's arguments as they stream: a write whose content loops is a runaway too.
    if (part.type === "tool-input-delta") return this.asked(part)
    if (part.type === "tool-call") {
      this.toolCalled = true
      return "tool"
    }
    return "go"
  }

  /** The monitors' word on one part: the first trip stops the stream. */
  private asked(part: StreamPart): Observed {
    for (const m of this.monitors) {
      const t = m.onPart?.(part) ?? null
      if (t !== null) {
        this.trip = t
        return "stop"
      }
    }
    return "go"
  }

  /** A progress event if one is due (the interval passed, or `force` at the end) and someone listens. */
  takeProgress(force: boolean): Progress | null {
    if (this.tokens === this.announcedTokens) return null
    if (!this.progress.listening()) {
      this.pendingText = ""
      return null
    }
    const now = this.progress.now()
    if (!force && now - this.announcedAt < this.progress.intervalMs) return null
    this.announcedAt = now
    this.announcedTokens = this.tokens
    const text = this.pendingText
    this.pendingText = ""
    return { tokens: this.tokens, text }
  }

  /** The stream ended without a trip or an error: a held partial word may still complete a loop. */
  onEnd(): void {
    if (this.trip !== null || this.streamError !== null) return
    for (const m of this.monitors) {
      const t = m.onEnd?.() ?? null
      if (t !== null) {
        this.trip = t
        return
      }
    }
  }
}
