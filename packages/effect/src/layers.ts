/**
 * The default wiring: RunLoop over SessionProcessor over ToolGate and RetryCoordinator, given the
 * pieces a runtime must choose (model, tools, config, events, permission, store).
 *
 * How overrides compose (docs/architecture.md):
 * - `deps` are the runtime's own choices and always win. Any of them may be left out of `deps`
 *   and provided around the result instead (the result then requires it).
 * - The built-in services (RetryCoordinator, ToolGate, GoalGate, CompletionCheck, Compactor) are defaults
 *   only: one found in `deps` or in the surrounding context at build time replaces the default.
 * - Every built-in is built fresh for each `loopguardLayer(...)` call. Effect shares a Layer
 *   built once across nested `Effect.provide` calls (the memo map is inherited), so a constant
 *   default Layer would let a second provider reuse the first one's model and retry budgets.
 * - The result exposes RunLoop, SessionProcessor and what `deps` provides, never its defaults,
 *   so a second `loopguardLayer` nested inside cannot mistake them for a runtime's overrides.
 */
import { Effect, Layer, Option, type Context } from "effect"
import type { ConfigService } from "./config/ConfigService.js"
import type { Events } from "./events/Events.js"
import { Compactor } from "./compaction/Compactor.js"
import { CompletionCheck } from "./gate/CompletionCheck.js"
import { GoalGate } from "./gate/GoalGate.js"
import { LLM } from "./llm/LLM.js"
import { SessionProcessor } from "./processor/SessionProcessor.js"
import { ToolGate, type Permission } from "./processor/ToolGate.js"
import { RetryCoordinator } from "./retry/RetryCoordinator.js"
import { RunLoop } from "./runloop/RunLoop.js"
import type { SessionStore } from "./store/SessionStore.js"
import type { Tools } from "./tools/Tools.js"

export type LoopguardDeps = LLM | Tools | ConfigService | Events | Permission | SessionStore

/** The services loopguard has a default for; a runtime's own one replaces the default. */
export type LoopguardDefaults = RetryCoordinator | ToolGate | GoalGate | CompletionCheck | Compactor

/**
 * `fallback`, unless the context being built already holds `service` (from `deps` or provided
 * around): then that one. The fallback is built fresh (see the module comment).
 */
export const unlessProvided = <I, S, E, R>(service: Context.Key<I, S>, fallback: Layer.Layer<I, E, R>): Layer.Layer<I, E, R> =>
  Layer.unwrap(
    Effect.map(
      Effect.serviceOption(service),
      (found): Layer.Layer<I, E, R> => (Option.isSome(found) ? Layer.succeed(service, found.value) : Layer.fresh(fallback))
    )
  )

/** Retry budgets for the model's provider: defaults ← `retry` ← `provider.<id>.retry`. */
export const retryForProvider = (): Layer.Layer<RetryCoordinator, never, LLM | ConfigService> =>
  Layer.unwrap(Effect.map(LLM, (llm) => RetryCoordinator.layerConfig(llm.providerId)))

/** Options of `loopguardLayer`. */
export interface LoopguardLayerOptions {
  /** Where the completion check runs (default: the process's working directory). */
  readonly cwd?: string
  /** Environment variables holding secrets (the API key's): never passed to the completion check. */
  readonly secretEnvNames?: ReadonlyArray<string>
}

/** RunLoop and SessionProcessor over `deps`, with loopguard's defaults for every built-in the runtime did not provide. */
export const loopguardLayer = <ROut, E, R>(deps: Layer.Layer<ROut, E, R>, options: LoopguardLayerOptions = {}) => {
  const check = CompletionCheck.layerShell(options.cwd, options.secretEnvNames !== undefined ? { secretEnvNames: options.secretEnvNames } : {})
  const defaults = Layer.mergeAll(
    unlessProvided(ToolGate, ToolGate.layer),
    unlessProvided(RetryCoordinator, retryForProvider()),
    unlessProvided(GoalGate, GoalGate.layer),
    unlessProvided(Compactor, Compactor.layer),
    unlessProvided(CompletionCheck, check)
  )
  const engine = Layer.fresh(RunLoop.layer).pipe(Layer.provideMerge(Layer.fresh(SessionProcessor.layer)), Layer.provide(defaults))
  return engine.pipe(Layer.provideMerge(deps))
}
