/**
 * The default wiring: RunLoop over SessionProcessor over ToolGate and RetryCoordinator, given the
 * pieces a runtime must choose (model, tools, config, events, permission, store). Any of the
 * services can still be swapped by providing its own Layer instead.
 */
import { Effect, Layer } from "effect"
import type { ConfigService } from "./config/ConfigService.js"
import type { Events } from "./events/Events.js"
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

/** Retry budgets for the model's provider: defaults ← `retry` ← `provider.<id>.retry`. */
export const retryForProvider = Layer.unwrap(
  Effect.gen(function* () {
    const llm = yield* LLM
    return RetryCoordinator.layerFromConfig(llm.providerId)
  })
)

export const loopguardLayer = <E, R>(deps: Layer.Layer<LoopguardDeps, E, R>, options: { readonly cwd?: string } = {}) => {
  const base = Layer.mergeAll(ToolGate.layer, retryForProvider, GoalGate.layer, CompletionCheck.layerShell(options.cwd)).pipe(Layer.provideMerge(deps))
  const processor = SessionProcessor.layer.pipe(Layer.provideMerge(base))
  return RunLoop.layer.pipe(Layer.provideMerge(processor))
}
