import { FINISH_REASONS } from "@loopguard/core/model"
import { describe, expect, test } from "bun:test"
import { Response } from "effect/ai"
import { normalizeAiError } from "./ai-error.js"
import { streamPartFromEffectAi, finishReasonFromEffectAi, usageFromEffectAi } from "./map-parts.js"

const usage = (u: ConstructorParameters<typeof Response.Usage>[0]) => new Response.Usage(u)

describe("Effect AI finish reasons", () => {
  test("every Effect AI reason lands on a loopguard reason; the shared ones keep their name", () => {
    for (const reason of Response.FinishReason.literals) {
      const mapped = finishReasonFromEffectAi(reason)
      expect(FINISH_REASONS).toContain(mapped)
      if ((FINISH_REASONS as ReadonlyArray<string>).includes(reason)) expect(mapped).toBe(reason as typeof mapped)
    }
  })

  test("pause is not an answer (other); a missing reason is unknown", () => {
    expect(finishReasonFromEffectAi("pause")).toBe("other")
    expect(finishReasonFromEffectAi(undefined)).toBe("unknown")
  })
})

describe("Effect AI usage", () => {
  test("totals, reasoning and cache reads are carried; the total is input + output", () => {
    const u = usage({
      inputTokens: { total: 100, uncached: 60, cacheRead: 40, cacheWrite: undefined },
      outputTokens: { total: 30, text: 20, reasoning: 10 }
    })
    expect(usageFromEffectAi(u)).toEqual({ inputTokens: 100, outputTokens: 30, totalTokens: 130, reasoningTokens: 10, cachedInputTokens: 40 })
  })

  test("no counts at all is no usage, and one missing side gives no total", () => {
    expect(usageFromEffectAi(usage({ inputTokens: {}, outputTokens: {} }))).toBeUndefined()
    expect(usageFromEffectAi(usage({ inputTokens: { total: 5 }, outputTokens: {} }))).toEqual({ inputTokens: 5 })
  })
})

describe("Effect AI parts", () => {
  test("provider-executed tool calls and bookkeeping parts are dropped", () => {
    const dropped = [
      Response.makePart("tool-call", { id: "w", name: "web_search", params: {}, providerExecuted: true }),
      Response.makePart("tool-params-start", { id: "w", name: "web_search", providerExecuted: true }),
      Response.makePart("text-start", { id: "t" }),
      Response.makePart("text-end", { id: "t" }),
      Response.makePart("reasoning-end", { id: "r" })
    ]
    for (const part of dropped) expect(streamPartFromEffectAi(part)).toBeNull()
    expect(streamPartFromEffectAi(Response.makePart("reasoning-delta", { id: "r", delta: "hm" }))).toEqual({ type: "reasoning-delta", text: "hm" })
  })

  test("anything that is not an AiError is normalized as it is", () => {
    expect(normalizeAiError(new Error("boom"))).toMatchObject({ message: "boom", name: "Error" })
    expect(normalizeAiError(undefined).message).toBe("Unknown error")
  })
})
