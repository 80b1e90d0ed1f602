/**
 * Options of `loopguardMiddleware`: the same `repeat` and `stream` sections as the loopguard
 * config file (with the defaults docs/config.md lists), validated once when the middleware is made. Nothing here
 * loads Effect, so the middleware runs in an app that does not install it.
 */
import { DEFAULT_REPEAT_SETTINGS, DEFAULT_STREAM_LIMITS, MAX_TIMER_MS, validateRepeatOptions, type RepeatGuard, type RepeatSettings, type StreamLimits } from "@loopguard/core/repeat"
import { checkPatch, type NumberRules } from "@loopguard/core/settings"

/** What core's repetition guard reports (its fields follow the guard, whatever rules it has). */
export type RepeatGuardTrip = NonNullable<ReturnType<RepeatGuard["push"]>>

/** What the middleware reports when it cut a call: `providerMetadata.loopguard`. */
export type LoopguardTrip =
  /** The guard's own trip fields, e.g. `token` (0-based, among the call's tokens), `period`, `repeats`. */
  | ({ readonly tripped: "text-repeat" } & RepeatGuardTrip)
  | {
      readonly tripped: "chunk-timeout"
      /** The silence that was allowed, in ms. */
      readonly timeoutMs: number
      /** Stream parts received before the silence (0: no response at all). */
      readonly partsBefore: number
    }

/** Every field optional, one level of nested sections included (e.g. a rule's own sub-section). */
type SectionPatch<T> = { readonly [K in keyof T]?: T[K] extends object ? Partial<T[K]> : T[K] }

export interface LoopguardMiddlewareOptions {
  /** In-stream repetition guard (config `repeat`, every field of it); `enabled: false` turns it off. */
  readonly repeat?: SectionPatch<RepeatSettings>
  /** Longest silence allowed before the first part and between two parts (config `stream.chunkTimeoutMs`). */
  readonly stream?: SectionPatch<StreamLimits>
  /** Told once per call that the middleware cut (logging, metrics), with the call's ids. Errors it throws are ignored. */
  readonly onTrip?: (trip: LoopguardTripEvent) => void
  /** Named on every trip the middleware reports (`onTrip`, `providerMetadata.loopguard`). */
  readonly sessionId?: string
}

/** The ids every trip carries: the model's provider and id, and the session when one was given. */
export interface TripIds {
  readonly provider: string
  readonly modelId: string
  readonly sessionId?: string
}

/** What `onTrip` is told: the trip and whose call it was. */
export type LoopguardTripEvent = LoopguardTrip & TripIds

export interface ResolvedMiddlewareOptions {
  readonly repeat: RepeatSettings
  readonly chunkTimeoutMs: number
  readonly onTrip: (trip: LoopguardTripEvent) => void
  readonly sessionId?: string
}

/** Marks the error whichever copy of the class made it (see `Symbol.hasInstance` below). */
const OPTIONS_ERROR = Symbol.for("@loopguard/ai-sdk/LoopguardMiddlewareOptionsError")

/** A bad option, named by its path: thrown by `loopguardMiddleware(...)` itself, never mid-stream. */
export class LoopguardMiddlewareOptionsError extends Error {
  override readonly name = "LoopguardMiddlewareOptionsError"
  readonly errors: ReadonlyArray<string>
  readonly [OPTIONS_ERROR] = true
  constructor(errors: ReadonlyArray<string>) {
    super(`invalid loopguardMiddleware options: ${errors.join("; ")}`)
    this.errors = errors
  }

  /**
   * `@loopguard/ai-sdk/agent` is one bundled module with a copy of this class (for start-up time): an
   * error either entry threw is `instanceof` the class of both.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === "object" && value !== null && (value as { [OPTIONS_ERROR]?: unknown })[OPTIONS_ERROR] === true
  }
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v)

const positive: NumberRules[string] = { int: true, greaterThan: 0 }
/** The same bounds as the config file's schema (packages/effect/src/config/schema.ts). */
const REPEAT_RULES: NumberRules = {
  window: positive,
  threshold: { int: true, atLeast: 2 },
  minBlock: positive,
  minDistinct: positive,
  long: {
    copies: { int: true, atLeast: 2 },
    minBlockTokens: positive,
    minBlockChars: positive,
    maxBlockChars: { int: true, atLeast: 1, atMost: 100_000 },
    minWords: { int: true, atLeast: 0 },
    runChars: positive,
    shortChars: positive,
    recurChars: positive,
    whitespaceChars: { int: true, atLeast: 2 }
  }
}
const STREAM_RULES: NumberRules = {
  chunkTimeoutMs: { int: true, greaterThan: 0, atMost: MAX_TIMER_MS },
  progressIntervalMs: { int: true, atLeast: 0, atMost: MAX_TIMER_MS },
  maxResponseBytes: positive,
  maxEventBytes: positive,
  persistIntervalMs: { int: true, atLeast: 0, atMost: MAX_TIMER_MS }
}

const MIDDLEWARE_KEYS: ReadonlySet<string> = new Set(["repeat", "stream", "onTrip", "sessionId"])
/** Options of loopguardAgent a user may hand the middleware by mistake: named as such in the error. */
const AGENT_ONLY: Readonly<Record<string, true>> = { loop: true, role: true, onEvent: true, repeatedAction: true, textLoop: true, tryBest: true, breaker: true }

/** Defaults filled in field by field, then checked; throws LoopguardMiddlewareOptionsError. */
export const resolveMiddlewareOptions = (options: LoopguardMiddlewareOptions = {}): ResolvedMiddlewareOptions => {
  if (!isPlainObject(options as unknown)) throw new LoopguardMiddlewareOptionsError(["options must be an object"])
  const repeat = checkPatch(DEFAULT_REPEAT_SETTINGS, options.repeat, "repeat", REPEAT_RULES)
  const stream = checkPatch<StreamLimits>(DEFAULT_STREAM_LIMITS, options.stream, "stream", STREAM_RULES)
  const unknown = Object.keys(options).filter((k) => !MIDDLEWARE_KEYS.has(k))
  // A judge section or budget is the agent helpers' (loopguardAgent): here it would be ignored without a word.
  const errors = [...unknown.map((k) => `${k}: Expected no excess property${k in AGENT_ONLY ? " (a loopguardAgent option: the middleware alone guards one reply)" : ""}`), ...repeat.errors, ...stream.errors]
  if (errors.length > 0) throw new LoopguardMiddlewareOptionsError(errors)
  if (repeat.value.enabled) {
    for (const e of validateRepeatOptions(repeat.value)) errors.push(`repeat.${e.field}: ${e.message}`)
  }
  if (options.onTrip !== undefined && typeof options.onTrip !== "function") errors.push("onTrip: must be a function")
  if (options.sessionId !== undefined && (typeof options.sessionId !== "string" || options.sessionId === "")) errors.push("sessionId: must be a non-empty string")
  if (errors.length > 0) throw new LoopguardMiddlewareOptionsError(errors)
  return { repeat: repeat.value, chunkTimeoutMs: stream.value.chunkTimeoutMs, onTrip: options.onTrip ?? (() => {}), ...(options.sessionId !== undefined ? { sessionId: options.sessionId } : {}) }
}
