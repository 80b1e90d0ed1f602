/**
 * The in-stream repetition guard (docs/repetition.md) as a decorator of an Effect AI `LanguageModel`, for a
 * runtime that keeps its own loop instead of adopting the RunLoop. `streamText` is cut at the
 * part that completes the repetition: that part and everything before it are kept, nothing after
 * it is requested (the provider stream is interrupted, which closes its HTTP request).
 *
 * Covered: `streamText` text and reasoning deltas, fed through core's RepeatGuard (the short-period rule
 * and the long-period rule), with the `ConfigService` service's `repeat` thresholds. Not covered:
 * `generateText` / `generateObject` (a whole response cannot be cut early; they pass through),
 * retries, error classification, the recovery reminders and every cross-step detector — those
 * stay with the RunLoop.
 */
import { RepeatGuard, type GuardTrip, type RepeatGuardOptions } from "@loopguard/core/repeat"
import { Effect, Layer, Stream } from "effect"
import { LanguageModel } from "effect/ai"
import { ConfigService } from "../config/ConfigService.js"
import { repeatGuardOptionsOf } from "../config/repeat-guard-options.js"

export interface EffectAiGuardOptions {
  /** Runs once when a stream is cut, with where the repetition was found. */
  readonly onTrip?: (trip: GuardTrip) => Effect.Effect<void>
}

type DeltaKind = "text-delta" | "reasoning-delta"

/** One guard per stream; returns the trip a part completes, if any. */
const makeChecker = (options: RepeatGuardOptions) => {
  const guard = new RepeatGuard(options)
  // A switch between reasoning and text ends the word in progress (no word spans the two).
  let last: DeltaKind | null = null
  return (part: { readonly type: string; readonly delta?: unknown }): GuardTrip | null => {
    if ((part.type !== "text-delta" && part.type !== "reasoning-delta") || typeof part.delta !== "string") return null
    const kind: DeltaKind = part.type
    const boundary = last !== null && last !== kind ? guard.flush() : null
    last = kind
    const trip = guard.push(part.delta)
    return boundary ?? trip
  }
}

/** Cuts any Effect AI response stream at the first repetition trip. */
export const guardEffectAiStream =
  (repeat: RepeatGuardOptions, options: EffectAiGuardOptions = {}) =>
  <A extends { readonly type: string }, E, R>(stream: Stream.Stream<A, E, R>): Stream.Stream<A, E, R> =>
    Stream.suspend(() => {
      const check = makeChecker(repeat)
      let tripped: GuardTrip | null = null
      let reported = false
      const cut = stream.pipe(
        Stream.takeUntil((part) => {
          tripped = check(part as { readonly type: string; readonly delta?: unknown })
          return tripped !== null
        })
      )
      const onTrip = options.onTrip
      if (onTrip === undefined) return cut
      return cut.pipe(
        Stream.tap(() => {
          if (tripped === null || reported) return Effect.void
          reported = true
          return onTrip(tripped)
        })
      )
    })

/** The same model with a guarded `streamText`; everything else is the inner model's. */
export const guardedLanguageModel = (
  inner: LanguageModel.LanguageModel,
  repeat: RepeatGuardOptions,
  options: EffectAiGuardOptions = {}
): LanguageModel.LanguageModel => {
  const guard = guardEffectAiStream(repeat, options)
  const streamText = ((request: Parameters<LanguageModel.LanguageModel["streamText"]>[0]) =>
    guard(inner.streamText(request))) as LanguageModel.LanguageModel["streamText"]
  return { ...inner, streamText }
}

/**
 * A `LanguageModel` layer over the one below it, guarded with the config's `repeat` section
 * (`repeat.enabled: false` hands the inner model through untouched):
 * `guardLanguageModelWith().pipe(Layer.provide(providerModelLayer), Layer.provide(configLayer))`.
 */
export const guardLanguageModelWith = (
  options: EffectAiGuardOptions = {}
): Layer.Layer<LanguageModel.LanguageModel, never, LanguageModel.LanguageModel | ConfigService> =>
  Layer.effect(
    LanguageModel.LanguageModel,
    Effect.gen(function* () {
      const inner = yield* LanguageModel.LanguageModel
      const { repeat } = yield* ConfigService
      if (!repeat.enabled) return inner
      return guardedLanguageModel(inner, repeatGuardOptionsOf(repeat), options)
    })
  )

/** An Effect AI `LanguageModel` Layer guarded by the repetition rule, with thresholds from the config service. */
export const guardLanguageModel: Layer.Layer<LanguageModel.LanguageModel, never, LanguageModel.LanguageModel | ConfigService> =
  guardLanguageModelWith()
