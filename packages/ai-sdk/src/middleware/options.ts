/**
 * Options of `loopguardMiddleware`: the same `repeat` and `stream` sections as the loopguard
 * config file (SPEC §1 and §5 defaults), validated once when the middleware is made.
 */
import { validateRepeatOptions } from "@loopguard/core/repeat"
import { DEFAULT_CONFIG, RepeatSection, StreamSection, type LoopguardConfig } from "@loopguard/effect/config"
import { Schema } from "effect"

/** What the middleware reports when it cut a call: `providerMetadata.loopguard`. */
export type LoopguardTrip =
  | {
      readonly tripped: "text-repeat"
      /** 0-based index, among the call's text and reasoning tokens, of the token that completed the loop. */
      readonly token: number
      /** Smallest repeating block length (tokens) at that moment. */
      readonly period: number
      readonly repeats: number
    }
  | {
      readonly tripped: "chunk-timeout"
      /** The silence that was allowed, in ms. */
      readonly timeoutMs: number
      /** Stream parts received before the silence (0: no response at all). */
      readonly partsBefore: number
    }

export interface LoopguardMiddlewareOptions {
  /** In-stream repetition guard (config `repeat`); `enabled: false` turns it off. */
  readonly repeat?: Partial<LoopguardConfig["repeat"]>
  /** Longest silence allowed before the first part and between two parts (config `stream.chunkTimeoutMs`). */
  readonly stream?: Partial<LoopguardConfig["stream"]>
  /** Told once per call that the middleware cut (logging, metrics). Errors it throws are ignored. */
  readonly onTrip?: (trip: LoopguardTrip) => void
}

export interface ResolvedMiddlewareOptions {
  readonly repeat: LoopguardConfig["repeat"]
  readonly chunkTimeoutMs: number
  readonly onTrip: (trip: LoopguardTrip) => void
}

/** A bad option, named by its path: thrown by `loopguardMiddleware(...)` itself, never mid-stream. */
export class LoopguardMiddlewareOptionsError extends Error {
  override readonly name = "LoopguardMiddlewareOptionsError"
  readonly errors: ReadonlyArray<string>
  constructor(errors: ReadonlyArray<string>) {
    super(`invalid loopguardMiddleware options: ${errors.join("; ")}`)
    this.errors = errors
  }
}

const Sections = Schema.Struct({ repeat: RepeatSection, stream: StreamSection })

/** Each schema issue as `path: message` (SchemaError messages read "Expected …\n  at [\"a\"][\"b\"]"). */
const schemaErrors = (input: unknown): ReadonlyArray<string> => {
  const r = Schema.decodeUnknownExit(Sections)(input, { errors: "all", onExcessProperty: "error" })
  if (r._tag === "Success") return []
  const reasons = (r.cause as { reasons?: ReadonlyArray<{ error?: { message?: string } }> }).reasons ?? []
  const out: Array<string> = []
  let pending: Array<string> = []
  for (const line of reasons.map((x) => x.error?.message ?? "").join("\n").split("\n")) {
    const at = /^\s*at (.*)$/.exec(line)
    if (at) {
      const path = [...at[1]!.matchAll(/\["?([^"\]]*)"?\]/g)].map((m) => m[1]!).join(".")
      out.push(`${path}: ${pending.join(" ")}`)
      pending = []
    } else if (line.trim() !== "") pending.push(line.trim())
  }
  if (pending.length > 0) out.push(pending.join(" "))
  return out.length > 0 ? out : ["options do not match the config schema"]
}

/** Defaults filled in field by field, then checked; throws LoopguardMiddlewareOptionsError. */
export const resolveMiddlewareOptions = (options: LoopguardMiddlewareOptions = {}): ResolvedMiddlewareOptions => {
  if (options === null || typeof options !== "object") throw new LoopguardMiddlewareOptionsError(["options must be an object"])
  const merged = {
    repeat: { ...DEFAULT_CONFIG.repeat, ...options.repeat },
    stream: { ...DEFAULT_CONFIG.stream, ...options.stream }
  }
  const errors = [...schemaErrors(merged)]
  if (errors.length === 0 && merged.repeat.enabled) {
    for (const e of validateRepeatOptions(merged.repeat)) errors.push(`repeat.${e.field}: ${e.message}`)
  }
  if (options.onTrip !== undefined && typeof options.onTrip !== "function") errors.push("onTrip: must be a function")
  if (errors.length > 0) throw new LoopguardMiddlewareOptionsError(errors)
  return { repeat: merged.repeat, chunkTimeoutMs: merged.stream.chunkTimeoutMs, onTrip: options.onTrip ?? (() => {}) }
}
