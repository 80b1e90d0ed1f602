/**
 * Drives a session step by step: build the request, let the SessionProcessor run it, classify
 * the reply, apply the bounded recovery (remind, replan, continue, exclude) or end the run, and
 * run the cross-step detectors (`step.ts` lists the stages). Every way out goes through `stop`
 * (`run-context.ts`), and one report is built at the end whatever the reason.
 *
 * Shadow mode (audit): every detector runs and every incident is reported, but nothing is
 * enforced — no reminder is stored, nothing is excluded or cropped, and the loop only stops when
 * the recorded steps run out; the first exit the loop would have taken is kept as `exit`.
 */
import { DEFAULT_PRICE_TABLE, priceFor, type PriceTable } from "@loopguard/core/caps"
import { Context, Effect, Layer, Option } from "effect"
import { Compactor } from "../compaction/Compactor.js"
import { ConfigService } from "../config/ConfigService.js"
import { Events, stampIds, withEventIds } from "../events/Events.js"
import { CompletionCheck } from "../gate/CompletionCheck.js"
import { GoalGate } from "../gate/GoalGate.js"
import { FallbackLLM } from "../llm/FallbackLLM.js"
import { LLM } from "../llm/LLM.js"
import { SessionProcessor } from "../processor/SessionProcessor.js"
import { SessionStore } from "../store/SessionStore.js"
import { Tools } from "../tools/Tools.js"
import { requestFailureSummary, retryPrompt, shouldRetryAfterFailure } from "./failure-retry.js"
import { localToolsOf } from "./local-tools.js"
import { makeRunContext, type RunServices } from "./run-context.js"
import type { RunInput, RunResult } from "./run-types.js"
import { startRun } from "./stages/begin-step.js"
import { finishInterrupted, finishRun } from "./stages/finish.js"
import { endFromOutside, externalStop } from "./stages/run-limits.js"
import { runSteps } from "./step.js"
import { TryBestSessions } from "./try-best-monitor.js"
import type { SessionStoreError } from "../store/SessionStoreError.js"

/** The loop of steps for one user turn: requests, classification, recoveries, cross-step detectors, caps and the report. */
export class RunLoop extends Context.Service<RunLoop, { readonly run: (input: RunInput) => Effect.Effect<RunResult, SessionStoreError> }>()(
  "loopguard/RunLoop"
) {
  static readonly layer = Layer.effect(
    RunLoop,
    Effect.gen(function* () {
      const config = yield* ConfigService
      const llm = yield* LLM
      const prices = { ...DEFAULT_PRICE_TABLE, ...(config.prices as PriceTable) }
      const fallback = yield* Effect.serviceOption(FallbackLLM)
      const services: RunServices = {
        config,
        processor: yield* SessionProcessor,
        store: yield* SessionStore,
        events: stampIds(yield* Events),
        tools: yield* Tools,
        goalGate: yield* GoalGate,
        completionCheck: yield* CompletionCheck,
        compactor: yield* Compactor,
        modelId: llm.modelId,
        tryBest: new TryBestSessions(config),
        price: priceFor(llm.modelId, prices),
        fallback: Option.isSome(fallback) ? { llm: fallback.value, price: priceFor(fallback.value.modelId, prices) } : null
      }

      const runOnce = (input: RunInput): Effect.Effect<RunResult, SessionStoreError> =>
        Effect.gen(function* () {
          // A sub-agent (the `task` tool) is one more run of this same loop.
          const spawn = (child: RunInput) => runOnce(child)
          const history = yield* services.store.messages(input.sessionId)
          const ctx = makeRunContext(services, input, history, (context) => localToolsOf(services, input, spawn, context))
          return yield* Effect.gen(function* () {
            if ((yield* startRun(services, ctx)) === "go") {
              const outside = yield* Effect.raceFirst(runSteps(services, ctx), externalStop(services, ctx))
              if (outside !== null) yield* endFromOutside(services, ctx, outside)
            }
            return yield* finishRun(services, ctx)
          }).pipe(Effect.onInterrupt(() => finishInterrupted(services, ctx)))
        }).pipe(withEventIds({ sessionId: input.sessionId, provider: llm.providerId, modelId: llm.modelId }))

      const run = Effect.fn("RunLoop.run")(function* (input: RunInput) {
        let result = yield* runOnce(input)
        // Seed 002's failure-summary retry (off by default): ask what failed, then try the task afresh.
        for (let retry = 1; retry <= config.failureSummary.maxRetries && shouldRetryAfterFailure(services, input, result); retry++) {
          const failed = result.exit!
          const steps = (yield* services.store.messages(input.sessionId)).filter((m) => m.role === "assistant").length
          const summary = yield* requestFailureSummary(services, input, steps)
          const incident = { step: failed.step, detector: "failure-summary", action: "retry", kind: "recovery" as const, detail: { reason: failed.reason, retry, summaryChars: summary.length } }
          yield* services.events.publish({ type: "incident", ...incident })
          const next = yield* runOnce({ ...input, prompt: retryPrompt(input.prompt!, failed.reason, summary) })
          result = { ...next, incidents: [...result.incidents, incident, ...next.incidents] }
        }
        return result
      })
      return RunLoop.of({ run })
    })
  )
}
