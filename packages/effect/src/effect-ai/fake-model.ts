/**
 * A scripted Effect AI `LanguageModel` for tests: each `streamText` call plays the next entry of
 * the script (encoded response parts, optionally followed by a failure) and records the
 * provider options Effect AI built for it (prompt, tools, tool choice).
 */
import { Effect, Layer, Stream } from "effect"
import { AiError, LanguageModel, type Response } from "effect/ai"

export interface ScriptedTurn {
  readonly parts: ReadonlyArray<Response.StreamPartEncoded>
  /** Fails the stream after the parts. */
  readonly fail?: AiError.AiError
}

export interface FakeModel {
  readonly layer: Layer.Layer<LanguageModel.LanguageModel>
  readonly calls: Array<LanguageModel.ProviderOptions>
}

export const usage = (input: number, output: number): Response.StreamPartEncoded => ({
  type: "finish",
  reason: "stop",
  usage: { inputTokens: { total: input }, outputTokens: { total: output } }
})

export const finishPart = (reason: Response.FinishReason): Response.StreamPartEncoded => ({
  type: "finish",
  reason,
  usage: { inputTokens: {}, outputTokens: {} }
})

/** A text answer streamed as the given deltas. */
export const textTurn = (deltas: ReadonlyArray<string>, reason: Response.FinishReason = "stop"): ScriptedTurn => ({
  parts: [
    { type: "response-metadata", id: "resp", modelId: "fake" },
    { type: "text-start", id: "t" },
    ...deltas.map((delta): Response.StreamPartEncoded => ({ type: "text-delta", id: "t", delta })),
    { type: "text-end", id: "t" },
    finishPart(reason)
  ]
})

export const toolTurn = (id: string, name: string, params: unknown): ScriptedTurn => {
  const text = typeof params === "string" ? params : JSON.stringify(params)
  return {
    parts: [
      { type: "tool-params-start", id, name },
      { type: "tool-params-delta", id, delta: text },
      { type: "tool-params-end", id },
      { type: "tool-call", id, name, params },
      finishPart("tool-calls")
    ]
  }
}

export const makeFakeModel = (script: ReadonlyArray<ScriptedTurn>): FakeModel => {
  const calls: Array<LanguageModel.ProviderOptions> = []
  const next = (options: LanguageModel.ProviderOptions): ScriptedTurn => {
    const turn = script[calls.length]
    calls.push(options)
    if (turn === undefined) throw new Error(`fake model: no scripted turn ${calls.length}`)
    return turn
  }
  const layer = Layer.effect(
    LanguageModel.LanguageModel,
    LanguageModel.make({
      generateText: () =>
        Effect.fail(
          AiError.make({ module: "Fake", method: "generateText", reason: new AiError.UnknownError({ description: "not scripted" }) })
        ),
      streamText: (options) =>
        Stream.suspend(() => {
          const turn = next(options)
          const parts = Stream.fromIterable(turn.parts)
          return turn.fail === undefined ? parts : Stream.concat(parts, Stream.fail(turn.fail))
        })
    })
  )
  return { layer, calls }
}
