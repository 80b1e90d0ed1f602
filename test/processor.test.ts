import { repeatLoop, textStream } from "@loopguard/ai-sdk/testing"
import { textOf } from "@loopguard/core/model"
import { SessionProcessor, SessionStore } from "@loopguard/effect"
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { makeHarness, noRetries } from "./harness.js"

const processOnce = (text = "go") =>
  Effect.gen(function* () {
    const processor = yield* SessionProcessor
    const store = yield* SessionStore
    yield* store.append("s", { role: "user", id: "u0", text })
    return yield* processor.process({
      sessionId: "s",
      parentId: "u0",
      step: 0,
      request: { messages: [{ role: "user", text }], tools: [] },
      messageId: (n) => `a${n}`
    })
  })

const SENTENCE = "I will now check the configuration file again to be sure." // 11 tokens

describe("SessionProcessor over HTTP with the repetition guard", () => {
  test("a looping generation is cut at the 20th repetition and the server sees the request closed", async () => {
    const h = await makeHarness([repeatLoop(SENTENCE, 60, { chunkSize: 7, chunkDelayMs: 2 })])
    try {
      const r = await h.run(processOnce())
      expect(r.outcome.type).toBe("text-repeat")
      if (r.outcome.type !== "text-repeat") return
      expect(r.outcome.period).toBe(11)
      expect(r.outcome.token).toBe(11 * 20 - 1)
      // What streamed before the cut is kept.
      const kept = textOf(r.message)
      expect(kept.split("configuration").length - 1).toBeGreaterThanOrEqual(20)
      expect(kept.split("configuration").length - 1).toBeLessThan(60)
      await h.server.requests[0]!.done
      expect(h.server.requests[0]!.closedEarly).toBe(true)
    } finally {
      await h.close()
    }
  })

  test("a 43-word paragraph ×400 (about 97 KB) is cut by the long-period rule within 5 copies", async () => {
    const paragraph =
      "We need to update the parser so that the nested table rows keep their alignment when the header holds merged cells, then rerun the formatter tests and compare the output with the expected fixture files once more before we touch the renderer again."
    expect(paragraph.split(" ")).toHaveLength(43)
    const h = await makeHarness([repeatLoop(paragraph, 400, { chunkSize: 64, chunkDelayMs: 1 })])
    try {
      const r = await h.run(processOnce())
      expect(r.outcome.type).toBe("text-repeat")
      if (r.outcome.type !== "text-repeat") return
      expect(r.outcome.trip.rule).toBe("long")
      expect(r.outcome.period).toBeNull()
      const kept = textOf(r.message)
      expect(kept.split("renderer again.").length - 1).toBeLessThanOrEqual(5)
      await h.server.requests[0]!.done
      expect(h.server.requests[0]!.closedEarly).toBe(true)
    } finally {
      await h.close()
    }
  }, 30_000)

  test("19 repetitions of the sentence do not trip", async () => {
    const h = await makeHarness([textStream(Array(19).fill(SENTENCE).join(" ") + " Done.", { chunkSize: 5 })])
    try {
      const r = await h.run(processOnce())
      expect(r.outcome.type).toBe("continue")
      expect(r.message.finish).toBe("stop")
    } finally {
      await h.close()
    }
  })

  test("a long healthy generation is never cut", async () => {
    const words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu"]
    let seed = 7
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed / 2 ** 31)
    const text = Array.from({ length: 6000 }, () => words[Math.floor(rnd() * words.length)]).join(" ")
    const h = await makeHarness([textStream(text, { chunkSize: 23 })])
    try {
      const r = await h.run(processOnce())
      expect(r.outcome.type).toBe("continue")
      expect(textOf(r.message)).toBe(text)
      expect(h.server.requests[0]!.closedEarly).toBe(false)
    } finally {
      await h.close()
    }
  })

  test("a CJK loop is cut", async () => {
    const h = await makeHarness([textStream("我们需要再检查一下这个配置文件。".repeat(40), { chunkSize: 3, chunkDelayMs: 2 })])
    try {
      const r = await h.run(processOnce())
      expect(r.outcome.type).toBe("text-repeat")
      if (r.outcome.type === "text-repeat") expect(r.outcome.period).toBe(16)
      await h.server.requests[0]!.done
      expect(h.server.requests[0]!.closedEarly).toBe(true)
    } finally {
      await h.close()
    }
  })

  test("one CJK character written 200 times does not trip (one distinct token)", async () => {
    const h = await makeHarness([textStream("好".repeat(200), { chunkSize: 9 })])
    try {
      const r = await h.run(processOnce())
      expect(r.outcome.type).toBe("continue")
    } finally {
      await h.close()
    }
  })

  test("reasoning deltas feed the same guard", async () => {
    const h = await makeHarness([textStream("Final answer.", { chunkSize: 9, reasoning: Array(25).fill(SENTENCE).join(" ") })])
    try {
      const r = await h.run(processOnce())
      expect(r.outcome.type).toBe("text-repeat")
    } finally {
      await h.close()
    }
  })

  test("silence past the chunk timeout ends the step with a typed stream error", async () => {
    const h = await makeHarness([{ type: "stream", chunks: [{ text: "Working on it" }, { text: " now" }], finish: "stop", stallAfterChunks: 1, stallMs: 5_000 }], {
      config: (c) => ({ ...noRetries(c), stream: { ...c.stream, chunkTimeoutMs: 250 } })
    })
    try {
      const started = Date.now()
      const r = await h.run(processOnce())
      expect(Date.now() - started).toBeLessThan(4_000)
      expect(r.outcome.type).toBe("error")
      if (r.outcome.type === "error") {
        expect(r.outcome.error.name).toBe("ChunkTimeoutError")
        expect(r.outcome.error.phase).toBe("stream")
      }
      expect(textOf(r.message)).toBe("Working on it")
    } finally {
      await h.close()
    }
  })
})
