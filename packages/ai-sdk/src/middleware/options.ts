/**
 * Options of `loopguardMiddleware`: the same `repeat` and `stream` sections as the loopguard
 * config file (SPEC §1 and §5 defaults), validated once when the middleware is made.
 */
import { validateRepeatOptions, type RepeatGuard } from "@loopguard/core/repeat"
import { DEFAULT_CONFIG, RepeatSection, StreamSection, type LoopguardConfig } from "@loopguard/effect/config"
import { Schema } from "effect"

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
  readonly repeat?: SectionPatch<LoopguardConfig["repeat"]>
  /** Longest silence allowed before the first part and between two parts (config `stream.chunkTimeoutMs`). */
  readonly stream?: SectionPatch<LoopguardConfig["stream"]>
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

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v)

/** `defaults` with `patch` laid over it field by field, and nested sections merged the same way. */
const mergeSection = (defaults: object, patch: unknown): unknown => {
  if (patch === undefined) return defaults
  if (!isPlainObject(patch)) return patch // the Schema names what is wrong with it
  const out: Record<string, unknown> = { ...defaults }
  for (const [key, value] of Object.entries(patch)) {
    const base = out[key]
    out[key] = isPlainObject(base) && isPlainObject(value) ? { ...base, ...value } : value
  }
  return out
}

/** Defaults filled in field by field, then checked; throws LoopguardMiddlewareOptionsError. */
export const resolveMiddlewareOptions = (options: LoopguardMiddlewareOptions = {}): ResolvedMiddlewareOptions => {
  if (!isPlainObject(options as unknown)) throw new LoopguardMiddlewareOptionsError(["options must be an object"])
  const input = {
    repeat: mergeSection(DEFAULT_CONFIG.repeat, options.repeat),
    stream: mergeSection(DEFAULT_CONFIG.stream, options.stream)
  }
  const errors = [...schemaErrors(input)]
  if (errors.length > 0) throw new LoopguardMiddlewareOptionsError(errors)
  const merged = input as Pick<LoopguardConfig, "repeat" | "stream">
  if (merged.repeat.enabled) {
    for (const e of validateRepeatOptions(merged.repeat)) errors.push(`repeat.${e.field}: ${e.message}`)
  }
  if (options.onTrip !== undefined && typeof options.onTrip !== "function") errors.push("onTrip: must be a function")
  if (errors.length > 0) throw new LoopguardMiddlewareOptionsError(errors)
  return { repeat: merged.repeat, chunkTimeoutMs: merged.stream.chunkTimeoutMs, onTrip: options.onTrip ?? (() => {}) }
}
