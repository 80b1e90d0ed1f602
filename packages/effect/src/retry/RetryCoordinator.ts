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
  validateRetryConfig,
  type RetryBudgets,
  type RetryConfigRoot
} from "@loopguard/core/retry"
import { Context, Effect, Layer, type Schedule } from "effect"
import { ConfigService } from "../config/ConfigService.js"
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

export interface RetryCoordinatorOptions {
  readonly budgets?: RetryBudgets
  /** HTTP statuses retried as server errors for this provider (`retry.retryableStatuses`). */
  readonly retryableStatuses?: ReadonlyArray<number>
  /** Silent immediate retries of `server_is_overloaded` in the main session; default 3. */
  readonly overloadedImmediateRetries?: number
  /** Told once per failure that was not retryable, so a UI can show why the run stopped. */
  readonly onTerminal?: (error: NormalizedError, reason: string) => Effect.Effect<void>
}

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

/** Retry budgets by error kind as an Effect `Schedule`; provide your own Layer for per-provider policy. */
export class RetryCoordinator extends Context.Service<RetryCoordinator, RetryCoordinatorShape>()("loopguard/RetryCoordinator") {
  /** The default budgets (docs/retry.md). */
  static readonly layer: Layer.Layer<RetryCoordinator> = Layer.sync(RetryCoordinator, () => makeRetryCoordinator())

  /** Built from explicit options (custom runtimes, tests). */
  static readonly layerOf = (options: RetryCoordinatorOptions): Layer.Layer<RetryCoordinator> =>
    Layer.sync(RetryCoordinator, () => makeRetryCoordinator(options))

  /** Defaults overridden field by field by one `retry` section (validated: it may come from a file). */
  static readonly layerWith = (
    config: unknown,
    options: Omit<RetryCoordinatorOptions, "budgets"> = {}
  ): Layer.Layer<RetryCoordinator, RetryConfigError> => {
    const checked = validateRetryConfig(config, "retry")
    if (!checked.ok) return Layer.effect(RetryCoordinator, Effect.fail(new RetryConfigError({ errors: checked.errors })))
    return RetryCoordinator.layerOf({
      ...(checked.config.overloadedImmediateRetries !== undefined ? { overloadedImmediateRetries: checked.config.overloadedImmediateRetries } : {}),
      ...(checked.config.retryableStatuses !== undefined ? { retryableStatuses: checked.config.retryableStatuses } : {}),
      ...options,
      budgets: mergeRetryConfig(DEFAULT_RETRY_BUDGETS, checked.config)
    })
  }

  /** Budgets for one provider: defaults ← `retry` ← `provider.<id>.retry`, field by field. */
  static readonly layerFor = (
    providerId: string,
    root: RetryConfigRoot,
    options: Pick<RetryCoordinatorOptions, "onTerminal"> = {}
  ): Layer.Layer<RetryCoordinator, RetryConfigError> => {
    const r = resolveRetryBudgets(root, providerId)
    if (!r.ok) return Layer.effect(RetryCoordinator, Effect.fail(new RetryConfigError({ errors: r.errors })))
    return RetryCoordinator.layerOf({ ...options, budgets: r.budgets, overloadedImmediateRetries: r.overloadedImmediateRetries, retryableStatuses: r.retryableStatuses })
  }

  /**
   * Same as `layerFor`, reading the loopguard `ConfigService`. That config was validated when it
   * was loaded, so a failure here is a defect (a config built by hand that skipped validation).
   */
  static readonly layerFromConfig = (
    providerId?: string,
    options: Pick<RetryCoordinatorOptions, "onTerminal"> = {}
  ): Layer.Layer<RetryCoordinator, never, ConfigService> =>
    Layer.effect(
      RetryCoordinator,
      Effect.gen(function* () {
        const config = yield* ConfigService
        const r = resolveRetryBudgets({ retry: config.retry, provider: config.provider }, providerId)
        if (!r.ok) return yield* Effect.die(new RetryConfigError({ errors: r.errors }))
        return makeRetryCoordinator({
          ...options,
          budgets: r.budgets,
          overloadedImmediateRetries: r.overloadedImmediateRetries,
          retryableStatuses: r.retryableStatuses
        })
      })
    )
}
