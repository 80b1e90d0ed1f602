/**
 * RetryCoordinator (SPEC §5): decides per failure, keys the budget by kind, waits, and stops when
 * core `nextRetry` says so. A Layer, so a runtime can swap budgets per provider.
 *
 * - Request phase (inside the LLM call): `retry(request, { phase: "request", scope: "request" })`.
 * - Stream phase (SessionProcessor replays the whole step): keep one `RetryState` across replays
 *   and ask `nextRetry(state, error, { phase: "stream", elapsedMs })`; mark it unsafe after a
 *   tool-call event.
 */
import { type NormalizedError } from "@loopguard/core/model"
import {
  budgetFor,
  DEFAULT_OVERLOADED_IMMEDIATE_RETRIES,
  DEFAULT_RETRY_BUDGETS,
  decide,
  mergeRetryConfig,
  nextRetry as coreNextRetry,
  normalizeError,
  resolveRetryBudgets,
  validateRetryConfig,
  budgetNameFor,
  type DecideContext,
  type RetryBudgets,
  type RetryConfigRoot,
  type RetryDecision,
  type RetryPhase,
  type RetryScope,
  type RetryState
} from "@loopguard/core/retry"
import { Clock, Context, Effect, Layer, Random, type Schedule } from "effect"
import { ConfigService } from "../config/ConfigService.js"
import { RetryConfigError, RetryExhausted } from "./errors.js"
import { makeRetrySchedule, type RetryAttemptInfo, type RetryStep } from "./schedule.js"

export interface RetryOptions<E> {
  readonly phase: RetryPhase
  readonly scope: RetryScope
  /** Called before each (non-silent) wait; publish `session.retry.attempt` here. */
  readonly onAttempt?: (info: RetryAttemptInfo) => Effect.Effect<void>
  /** Called once when the failure is not retryable; replaces the service-level hook for this call. */
  readonly onTerminal?: (decision: RetryDecision, error: NormalizedError) => Effect.Effect<void>
  /** How to read the effect's error; default core `normalizeError` (also unwraps `{ error }`). */
  readonly normalize?: (error: E) => NormalizedError
  readonly replaySafe?: () => boolean
  /** Immediate silent retries of `server_is_overloaded`; default 0 (pass the service's count in the main session). */
  readonly overloadedImmediateRetries?: number
}

export interface NextRetryOptions {
  readonly phase: RetryPhase
  readonly scope?: RetryScope
  /** Time since the step's first attempt began. */
  readonly elapsedMs: number
}

export interface RetryCoordinatorShape {
  readonly budgets: RetryBudgets
  /** From config `retry.overloadedImmediateRetries`; SPEC default 3. */
  readonly overloadedImmediateRetries: number
  /** `decide` with the Effect clock (HTTP-date hints follow TestClock). */
  readonly decide: (error: NormalizedError, ctx?: Omit<DecideContext, "now">) => Effect.Effect<RetryDecision>
  /** The policy as a Schedule over the failure, for `Effect.retry` / `Stream.retry`. */
  readonly schedule: (phase: RetryPhase, scope: RetryScope) => Schedule.Schedule<RetryStep, NormalizedError>
  /**
   * Apply the policy. Terminal errors and unsafe replays come back unchanged (after `onTerminal`
   * for terminal ones); running out of budget or time fails with `RetryExhausted`.
   */
  readonly retry: <A, E, R>(effect: Effect.Effect<A, E, R>, options: RetryOptions<E>) => Effect.Effect<A, E | RetryExhausted<E>, R>
  /** One verdict for a caller that keeps its own state (the stream-phase replay loop). */
  readonly nextRetry: (state: RetryState, error: NormalizedError, options: NextRetryOptions) => Effect.Effect<RetryStep>
  /** The UI hook for "gave up on a non-retryable error". */
  readonly onTerminal: (error: NormalizedError, reason: string) => Effect.Effect<void>
}

export interface RetryCoordinatorOptions {
  readonly budgets?: RetryBudgets
  readonly overloadedImmediateRetries?: number
  readonly onTerminal?: (error: NormalizedError, reason: string) => Effect.Effect<void>
}

const defaultNormalize = (e: unknown): NormalizedError => {
  // A tagged wrapper such as LlmError carries the normalized error as `error`.
  if (e !== null && typeof e === "object" && "_tag" in e && "error" in e) return normalizeError((e as { error: unknown }).error)
  return normalizeError(e)
}

export const makeRetryCoordinator = (options: RetryCoordinatorOptions = {}): RetryCoordinatorShape => {
  const budgets = options.budgets ?? DEFAULT_RETRY_BUDGETS
  const hook = options.onTerminal ?? (() => Effect.void)

  const decideNow = Effect.fn("RetryCoordinator.decide")(function* (error: NormalizedError, ctx?: Omit<DecideContext, "now">) {
    const now = yield* Clock.currentTimeMillis
    return decide(error, { ...ctx, now })
  })

  const schedule = (phase: RetryPhase, scope: RetryScope) =>
    makeRetrySchedule<NormalizedError>({ phase, scope, budgets, normalize: (e) => e })

  const retry = Effect.fn("RetryCoordinator.retry")(function* <A, E, R>(
    effect: Effect.Effect<A, E, R>,
    opts: RetryOptions<E>
  ): Effect.fn.Return<A, E | RetryExhausted<E>, R> {
    const normalize = opts.normalize ?? defaultNormalize
    const policy = makeRetrySchedule<E>({
      phase: opts.phase,
      scope: opts.scope,
      budgets,
      normalize,
      ...(opts.replaySafe !== undefined ? { replaySafe: opts.replaySafe } : {}),
      ...(opts.overloadedImmediateRetries !== undefined ? { overloadedImmediateRetries: opts.overloadedImmediateRetries } : {}),
      ...(opts.onAttempt !== undefined ? { onAttempt: opts.onAttempt } : {})
    })
    return yield* Effect.retryOrElse(effect, policy, (lastError, stop) =>
      Effect.gen(function* () {
        if (stop.retry) return yield* Effect.fail(lastError) // not reached: a schedule ends on a stop
        if (stop.reason === "not-retryable") {
          const error = normalize(lastError)
          yield* opts.onTerminal !== undefined ? opts.onTerminal(stop.decision, error) : hook(error, stop.decision.reason)
          return yield* Effect.fail(lastError)
        }
        if (stop.reason === "unsafe-replay") return yield* Effect.fail(lastError)
        return yield* Effect.fail(
          new RetryExhausted<E>({ reason: stop.reason, attempts: stop.attempt, decision: stop.decision, error: normalize(lastError), lastError })
        )
      })
    )
  })

  const nextRetry = Effect.fn("RetryCoordinator.nextRetry")(function* (state: RetryState, error: NormalizedError, o: NextRetryOptions) {
    const now = yield* Clock.currentTimeMillis
    const decision = decide(error, { phase: o.phase, ...(o.scope !== undefined ? { scope: o.scope } : {}), now })
    const r = yield* Random.next
    const outcome = coreNextRetry(state, decision, budgetFor(decision, budgets), o.elapsedMs, () => r)
    const budget = budgetNameFor(decision)
    const step: RetryStep = outcome.retry
      ? { retry: true, attempt: outcome.attempt, delayMs: outcome.delayMs, decision, budget, silent: false }
      : { retry: false, reason: outcome.reason, attempt: state.attempt, decision, budget }
    return step
  })

  return {
    budgets,
    overloadedImmediateRetries: options.overloadedImmediateRetries ?? DEFAULT_OVERLOADED_IMMEDIATE_RETRIES,
    decide: decideNow,
    schedule,
    retry,
    nextRetry,
    onTerminal: hook
  }
}

export class RetryCoordinator extends Context.Service<RetryCoordinator, RetryCoordinatorShape>()("loopguard/RetryCoordinator") {
  /** SPEC §5 default budgets. */
  static readonly layer: Layer.Layer<RetryCoordinator> = Layer.succeed(RetryCoordinator, makeRetryCoordinator())

  /** Built from explicit options (tests, custom runtimes). */
  static readonly layerOf = (options: RetryCoordinatorOptions): Layer.Layer<RetryCoordinator> =>
    Layer.succeed(RetryCoordinator, makeRetryCoordinator(options))

  /** Defaults overridden field by field by one `retry` section (validated: it may come from a file). */
  static readonly layerWith = (
    config: unknown,
    options: Omit<RetryCoordinatorOptions, "budgets"> = {}
  ): Layer.Layer<RetryCoordinator, RetryConfigError> => {
    const checked = validateRetryConfig(config, "retry")
    if (!checked.ok) return Layer.effect(RetryCoordinator, Effect.fail(new RetryConfigError({ errors: checked.errors })))
    return RetryCoordinator.layerOf({
      ...(checked.config.overloadedImmediateRetries !== undefined ? { overloadedImmediateRetries: checked.config.overloadedImmediateRetries } : {}),
      ...options,
      budgets: mergeRetryConfig(DEFAULT_RETRY_BUDGETS, checked.config)
    })
  }

  /** Budgets for one provider: defaults ← `retry` ← `provider.<id>.retry`, field by field. */
  static readonly layerFor = (
    providerId: string,
    root: RetryConfigRoot,
    options: Omit<RetryCoordinatorOptions, "budgets" | "overloadedImmediateRetries"> = {}
  ): Layer.Layer<RetryCoordinator, RetryConfigError> => {
    const r = resolveRetryBudgets(root, providerId)
    if (!r.ok) return Layer.effect(RetryCoordinator, Effect.fail(new RetryConfigError({ errors: r.errors })))
    return RetryCoordinator.layerOf({ ...options, budgets: r.budgets, overloadedImmediateRetries: r.overloadedImmediateRetries })
  }

  /**
   * Same as `layerFor`, reading the loopguard `ConfigService` service. That config was validated when it
   * was loaded, so a failure here is a defect (a config built by hand that skipped validation).
   */
  static readonly layerFromConfig = (
    providerId?: string,
    options: Omit<RetryCoordinatorOptions, "budgets" | "overloadedImmediateRetries"> = {}
  ): Layer.Layer<RetryCoordinator, never, ConfigService> =>
    Layer.effect(
      RetryCoordinator,
      Effect.gen(function* () {
        const config = yield* ConfigService
        const r = resolveRetryBudgets({ retry: config.retry, provider: config.provider }, providerId)
        if (!r.ok) return yield* Effect.die(new RetryConfigError({ errors: r.errors }))
        return makeRetryCoordinator({ ...options, budgets: r.budgets, overloadedImmediateRetries: r.overloadedImmediateRetries })
      })
    )
}
