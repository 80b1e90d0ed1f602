/**
 * Every event names its session, provider and model: one runtime with two providers (the same
 * retry budget on both, one Events Layer shared), both failing their first request; the retry
 * events are told apart by their ids alone, not by a budget that happens to differ.
 */
import { layerOpenAICompatible } from "@loopguard/ai-sdk"
import { textStream, type ScriptedResponse } from "@loopguard/ai-sdk/testing"
import { ConfigService, Events, loopguardLayer, Permission, RetryCoordinator, RunLoop, SessionStore, Tools, type LoopguardEvent } from "@loopguard/effect"
import { describe, expect } from "bun:test"
import { Effect, Layer } from "effect"
import { it } from "./effect-test.js"
import { scriptedServer } from "./scoped-resources.js"

const fail500: ScriptedResponse = { type: "error", status: 500 }

describe("ids on every event", () => {
  it.live("two providers in one runtime: retry events carry session, provider and model ids; every event of a run carries them", () => Effect.gen(function* () {
    const alpha = yield* scriptedServer([fail500, textStream("alpha done")], { modelId: "alpha-model" })
    const beta = yield* scriptedServer([fail500, textStream("beta done")], { modelId: "beta-model" })
    const events: Array<LoopguardEvent> = []
    const shared = Layer.mergeAll(ConfigService.layer, Tools.layerNone, Layer.succeed(Events, Events.make((event) => void events.push(event))), Permission.layerDeny, SessionStore.layerMemory)
    const retry = { request: { maxRetries: 2, initialDelayMs: 10, jitterRatio: 0 } }
    const provider = (baseURL: string, modelId: string, id: string) =>
      loopguardLayer(layerOpenAICompatible({ baseURL, modelId, providerId: id })).pipe(Layer.provide(Layer.effect(RetryCoordinator, RetryCoordinator.make({ retry: retry }))))
    const ask = (sessionId: string) => Effect.flatMap(RunLoop, (loop) => loop.run({ sessionId, prompt: "go" }))
    const program = Effect.all([
      ask("session-a").pipe(Effect.provide(provider(alpha.baseURL, "alpha-model", "alpha"))),
      ask("session-b").pipe(Effect.provide(provider(beta.baseURL, "beta-model", "beta")))
    ])
    const [a, b] = yield* program.pipe(Effect.provide(shared))
    expect([a.report.reason, b.report.reason]).toEqual(["final", "final"])
    const retries = events.filter((e) => e.type === "session.retry.attempt")
    expect(retries.length).toBe(2)
    // The same budget on both: only the ids tell the two apart.
    expect(new Set(retries.map((e) => e.type === "session.retry.attempt" && e.maxRetries)).size).toBe(1)
    expect(retries.map((e) => [e.sessionId, e.provider, e.modelId]).sort()).toEqual([
      ["session-a", "alpha", "alpha-model"],
      ["session-b", "beta", "beta-model"]
    ])
    const missing = events.filter((e) => e.sessionId === undefined || e.provider === undefined || e.modelId === undefined)
    expect(missing.map((e) => e.type)).toEqual([])
    expect(new Set(events.map((e) => e.type)).size).toBeGreaterThan(4)
  }), 30_000)
})
