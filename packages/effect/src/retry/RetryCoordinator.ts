/**
 * RetryCoordinator (docs/retry.md): the one door through which a failed model call is retried. It owns
 * the budgets and hands out its policy as an Effect `Schedule` over the failure; the
 * SessionProcessor passes that schedule to `Effect.retry` and never reads a budget itself. A
 * Layer, so a runtime swaps budgets per provider by providing its own.
 *
 * One schedule spans a whole step: each failure's own phase picks the budget (nothing streamed
 * yet → request budgets; after the stream started → the step is replayed under the stream-phase
 * budgets, but only while `replaySafe` holds).
 */
import { type NormalizedError } from "@loopguard/core/model"
import {
  DEFAULT_OVERLOADED_IMMEDIATE_RETRIES,
  DEFAULT_RETRY_BUDGETS,
  mergeRetryConfig,
  normalizeError,
  resolveRetryBudgets,
  type RetryBudgets
} from "@loopguard/core/retry"
import { Context, Effect, Layer, Schema, type Schedule } from "effect"
import { ConfigService } from "../config/ConfigService.js"
import { configIssues, fieldName } from "../config/issues.js"
import { ProviderSection, RetrySection } from "../config/schema.js"
import { RetryConfigError } from "./errors.js"
import { makeRetrySchedule, type RetryAttemptInfo, type RetryStep, type RetryStop } from "./schedule.js"

export interface StepRetryOptions<E> {
  /** How to read the retried effect's error; default core `normalizeError` (also unwraps a tagged `{ error }`). */
  readonly normalize?: (error: E) => NormalizedError
  /** Consulted before every retry; once false the schedule stops with `unsafe-replay`. */
  readonly replaySafe?: () => boolean
  /** The main session gets the configured silent `server_is_overloaded` retries; other roles none. */
  readonly mainSession?: boolean
  /** Called before each announced wait; publish `session.retry.attempt` here. */
  readonly onAttempt?: (info: RetryAttemptInfo) => Effect.Effect<void>
  /** Called once when the schedule gives up, with why (the retried effect then fails with its last error). */
  readonly onStop?: (stop: RetryStop) => Effect.Effect<void>
}

export interface RetryCoordinatorShape {
  /**
   * The policy for one step, as a Schedule whose input is the failure: give it to `Effect.retry`.
   * A non-retryable failure also reaches the coordinator's `onTerminal` hook (the UI message).
   */
  readonly policy: <E>(options?: StepRetryOptions<E>) => Schedule.Schedule<RetryStep, E>
}

/** The hooks a runtime may add to any RetryCoordinator. */
export interface RetryCoordinatorHooks {
  /** Told once per failure that was not retryable, so a UI can show why the run stopped. */
  readonly onTerminal?: (error: NormalizedError, reason: string) => Effect.Effect<void>
}

/** What `makeRetryCoordinator` builds from: budgets already merged and checked. */
export interface RetryCoordinatorOptions extends RetryCoordinatorHooks {
  readonly budgets?: RetryBudgets
  /** HTTP statuses retried as server errors for this provider (`retry.retryableStatuses`). */
  readonly retryableStatuses?: ReadonlyArray<number>
  /** Silent immediate retries of `server_is_overloaded` in the main session; default 3. */
  readonly overloadedImmediateRetries?: number
}

/** The config's `retry` section (docs/config.md): a patch per budget over the defaults, and the section-wide knobs. */
export type RetrySectionInput = typeof RetrySection.Encoded

/** What `RetryCoordinator.make` takes: a `retry` section in the config's own shape, and hooks. */
export interface RetryCoordinatorInput extends RetryCoordinatorHooks {
  readonly retry?: RetrySectionInput
}

const decodeWith =
  <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S, at: ReadonlyArray<string>) =>
  (input: unknown): Effect.Effect<S["Type"], RetryConfigError> =>
    Schema.decodeUnknownEffect(schema)(input, { errors: "all", onExcessProperty: "error" }).pipe(
      Effect.mapError((e) => new RetryConfigError({ errors: configIssues(e.issue).map((i) => `${fieldName([...at, ...i.path])}: ${i.message}`) }))
    )

const defaultNormalize = (e: unknown): NormalizedError => {
  // A tagged wrapper such as LlmError carries the normalized error as `error`.
  if (e !== null && typeof e === "object" && "_tag" in e && "error" in e) return normalizeError((e as { error: unknown }).error)
  return normalizeError(e)
}

/** The service from explicit budgets and hooks (what every Layer below builds). */
export const makeRetryCoordinator = (options: RetryCoordinatorOptions = {}): RetryCoordinatorShape => {
  const budgets = options.budgets ?? DEFAULT_RETRY_BUDGETS
  const overloaded = options.overloadedImmediateRetries ?? DEFAULT_OVERLOADED_IMMEDIATE_RETRIES
  const onTerminal = options.onTerminal
  return {
    policy: <E>(o: StepRetryOptions<E> = {}) => {
      const normalize = o.normalize ?? (defaultNormalize as (e: E) => NormalizedError)
      return makeRetrySchedule<E>({
        budgets,
        normalize,
        overloadedImmediateRetries: o.mainSession === true ? overloaded : 0,
        ...(options.retryableStatuses !== undefined ? { retryableStatuses: options.retryableStatuses } : {}),
        ...(o.replaySafe !== undefined ? { replaySafe: o.replaySafe } : {}),
        ...(o.onAttempt !== undefined ? { onAttempt: o.onAttempt } : {}),
        onStop: (stop, error) =>
          Effect.gen(function* () {
            if (stop.reason === "not-retryable" && onTerminal !== undefined) yield* onTerminal(error, stop.decision.reason)
            if (o.onStop !== undefined) yield* o.onStop(stop)
          })
      })
    }
  }
}

/** Budgets for one provider from a validated config: defaults ← `retry` ← `provider.<id>.retry`, field by field. */
const fromConfig = (config: Pick<ConfigService["Service"], "retry" | "provider">, providerId: string | undefined, hooks: RetryCoordinatorHooks) => {
  const r = resolveRetryBudgets({ retry: config.retry, provider: config.provider }, providerId)
  return makeRetryCoordinator({ ...hooks, budgets: r.budgets, overloadedImmediateRetries: r.overloadedImmediateRetries, retryableStatuses: r.retryableStatuses })
}

/** Retry budgets by error kind as an Effect `Schedule`; provide your own Layer for per-provider policy. */
export class RetryCoordinator extends Context.Service<RetryCoordinator, RetryCoordinatorShape>()("loopguard/RetryCoordinator") {
  /** The default budgets (docs/retry.md). */
  static readonly layer: Layer.Layer<RetryCoordinator> = Layer.sync(RetryCoordinator, () => makeRetryCoordinator())

  /**
   * The service from a `retry` section laid over the default budgets field by field, checked by
   * the config's schema (it may come from a file); fails with a RetryConfigError naming each bad field.
   */
  static readonly make = (input: RetryCoordinatorInput = {}): Effect.Effect<RetryCoordinatorShape, RetryConfigError> =>
    Effect.map(decodeWith(RetrySection, ["retry"])(input.retry ?? {}), (retry) =>
      fromConfig({ retry, provider: {} }, undefined, input.onTerminal !== undefined ? { onTerminal: input.onTerminal } : {})
    )

  /**
   * Budgets for one provider from the loopguard `ConfigService`: defaults ← `retry` ←
   * `provider.<id>.retry`. That config was checked by its schema when it was loaded, so nothing
   * is checked again here.
   */
  static readonly layerConfig = (providerId?: string, hooks: RetryCoordinatorHooks = {}): Layer.Layer<RetryCoordinator, never, ConfigService> =>
    Layer.effect(RetryCoordinator, Effect.map(ConfigService, (config) => fromConfig(config, providerId, hooks)))

  /** @deprecated Use `Layer.succeed(RetryCoordinator, makeRetryCoordinator(options))`; this alias goes in the next release. */
  static readonly layerOf = (options: RetryCoordinatorOptions): Layer.Layer<RetryCoordinator> =>
    Layer.sync(RetryCoordinator, () => makeRetryCoordinator(options))

  /** @deprecated Use `Layer.effect(RetryCoordinator, RetryCoordinator.make({ retry, ...hooks }))`; this alias goes in the next release. */
  static readonly layerWith = (config: RetrySectionInput, options: Omit<RetryCoordinatorOptions, "budgets"> = {}): Layer.Layer<RetryCoordinator, RetryConfigError> =>
    Layer.effect(
      RetryCoordinator,
      Effect.map(decodeWith(RetrySection, ["retry"])(config), (retry) =>
        makeRetryCoordinator({
          ...(retry.overloadedImmediateRetries !== undefined ? { overloadedImmediateRetries: retry.overloadedImmediateRetries } : {}),
          ...(retry.retryableStatuses !== undefined ? { retryableStatuses: retry.retryableStatuses } : {}),
          ...options,
          budgets: mergeRetryConfig(DEFAULT_RETRY_BUDGETS, retry)
        })
      )
    )

  /** @deprecated Use `RetryCoordinator.layerConfig(providerId)` over a `ConfigService`; this alias goes in the next release. */
  static readonly layerFor = (
    providerId: string,
    root: { readonly retry?: RetrySectionInput; readonly provider?: Readonly<Record<string, typeof ProviderSection.Encoded>> },
    hooks: RetryCoordinatorHooks = {}
  ): Layer.Layer<RetryCoordinator, RetryConfigError> =>
    Layer.effect(
      RetryCoordinator,
      Effect.gen(function* () {
        const retry = yield* decodeWith(RetrySection, ["retry"])(root.retry ?? {})
        const own = root.provider?.[providerId]
        const provider = own === undefined ? {} : { [providerId]: yield* decodeWith(ProviderSection, ["provider", providerId])(own) }
        return fromConfig({ retry, provider }, providerId, hooks)
      })
    )

  /** @deprecated Renamed `RetryCoordinator.layerConfig`; this alias goes in the next release. */
  static readonly layerFromConfig = (providerId?: string, hooks: RetryCoordinatorHooks = {}): Layer.Layer<RetryCoordinator, never, ConfigService> =>
    RetryCoordinator.layerConfig(providerId, hooks)
}
