import { describe, expect, test } from "bun:test"
import type { StreamPart } from "@loopguard/core/model"
import { Effect, Stream } from "effect"

/** A test written as an Effect, run to completion. */
const it = { effect: (name: string, body: () => Effect.Effect<void>) => test(name, () => Effect.runPromise(body())) }
import { redactParts } from "./redact-parts.js"

const SECRET = "sk-live-0123456789"

/** The parts in `chunks`, one Stream chunk each, through the stage. */
const through = (secrets: ReadonlyArray<string>, chunks: ReadonlyArray<ReadonlyArray<StreamPart>>) =>
  Stream.fromArrays(...chunks.filter((c) => c.length > 0)).pipe(redactParts(secrets), Stream.runCollect)

const textOf = (parts: ReadonlyArray<StreamPart>, type: "text-delta" | "reasoning-delta") =>
  parts.flatMap((p) => (p.type === type ? [p.text] : [])).join("")

describe("redactParts", () => {
  it.effect("a secret split over deltas and over chunks never passes; the text around it does", () =>
    Effect.gen(function* () {
      const text = `key is ${SECRET} ok`
      const deltas: Array<StreamPart> = text.match(/.{1,3}/g)!.map((t) => ({ type: "text-delta", text: t }))
      const out = yield* through([SECRET], [deltas.slice(0, 4), deltas.slice(4, 5), deltas.slice(5), [{ type: "finish", finish: "stop" }]])
      expect(textOf(out, "text-delta")).toBe("key is [REDACTED] ok")
      expect(out.at(-1)).toEqual({ type: "finish", finish: "stop" })
    }))

  it.effect("held-back text comes out before the next part of another kind, and at the end", () =>
    Effect.gen(function* () {
      const out = yield* through(
        [SECRET],
        [
          [{ type: "reasoning-delta", text: "think sk-li" }],
          [{ type: "text-delta", text: "say sk-" }, { type: "tool-input-start", id: "c1", name: "bash" }],
          [{ type: "text-delta", text: "tail sk-live" }]
        ]
      )
      expect(out).toEqual([
        { type: "reasoning-delta", text: "think " },
        { type: "reasoning-delta", text: "sk-li" },
        { type: "text-delta", text: "say " },
        { type: "text-delta", text: "sk-" },
        { type: "tool-input-start", id: "c1", name: "bash" },
        { type: "text-delta", text: "tail " },
        { type: "text-delta", text: "sk-live" }
      ])
    }))

  it.effect("with no secrets every delta passes as the same object; errors still lose credentials", () =>
    Effect.gen(function* () {
      const parts: Array<StreamPart> = [
        { type: "text-delta", text: "a" },
        { type: "reasoning-delta", text: "b" },
        { type: "error", error: { message: "401 for Authorization: Bearer abcdefghijklmnop" } }
      ]
      const out = yield* through([], [parts])
      expect(out[0]).toBe(parts[0]!)
      expect(out[1]).toBe(parts[1]!)
      expect(JSON.stringify(out[2])).not.toContain("abcdefghijklmnop")
    }))
})
