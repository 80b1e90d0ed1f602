import { describe, expect, test } from "bun:test"
import type { AssistantMessage, Message, UserMessage } from "../model/message.js"
import { applyCompaction, compactionText, isContextOverflow, planCompaction } from "./compaction.js"
import { contextSizeFor } from "./context-sizes.js"
import { estimateTokens } from "./estimate.js"

const reply = (i: number): AssistantMessage => ({ role: "assistant", id: `a${i}`, parentId: "u0", step: i, parts: [{ type: "text", text: `step ${i}` }], finish: "tool-calls" })
const goal: UserMessage = { role: "user", id: "u0", text: "Fix the build" }
const summary = (id: string, from: string, to: string): UserMessage => ({ role: "user", id, text: compactionText(`summary ${id}`), synthetic: "compaction", compacts: { from, to } })
const ids = (ms: ReadonlyArray<Message>) => ms.map((m) => m.id)

describe("planCompaction and applyCompaction", () => {
  test("keeps the task and the last steps whole; the summary takes the older steps' place", () => {
    const all: Array<Message> = [goal, ...[1, 2, 3, 4, 5, 6].map(reply)]
    const plan = planCompaction(all, all, 2)!
    expect(plan.range).toEqual({ from: "a1", to: "a4" })
    expect(ids(plan.older)).toEqual(["a1", "a2", "a3", "a4"])
    const stored = [...all, summary("c1", plan.range.from, plan.range.to)]
    expect(ids(applyCompaction(stored, stored))).toEqual(["u0", "c1", "a5", "a6"])
  })

  test("a reminder right before the first kept step stays with it", () => {
    const nudge: UserMessage = { role: "user", id: "r9", text: "continue", synthetic: "think-only" }
    const all: Array<Message> = [goal, reply(1), reply(2), reply(3), nudge, reply(4)]
    expect(planCompaction(all, all, 1)!.range).toEqual({ from: "a1", to: "a3" })
  })

  test("a second compaction reaches back over the first and never hides kept steps", () => {
    const first: Array<Message> = [goal, ...[1, 2, 3, 4, 5, 6].map(reply), summary("c1", "a1", "a2")]
    const later: Array<Message> = [...first, reply(7), reply(8)]
    const view = applyCompaction(later, later)
    expect(ids(view)).toEqual(["u0", "c1", "a3", "a4", "a5", "a6", "a7", "a8"])
    const plan = planCompaction(view, later, 4)!
    expect(plan.range).toEqual({ from: "a1", to: "a4" })
    const stored = [...later, summary("c2", plan.range.from, plan.range.to)]
    expect(ids(applyCompaction(stored, stored))).toEqual(["u0", "c2", "a5", "a6", "a7", "a8"])
  })

  test("too little to compact, and an unresolvable range, change nothing", () => {
    const all: Array<Message> = [goal, reply(1), reply(2)]
    expect(planCompaction(all, all, 2)).toBeNull()
    const broken = [...all, summary("c1", "gone", "a1")]
    expect(ids(applyCompaction(broken, broken))).toEqual(["u0", "a1", "a2"])
  })
})

describe("sizes and estimates", () => {
  test("context sizes: config entries (exact, then prefix) win over the table; unknown is null", () => {
    expect(contextSizeFor("gpt-4o-mini")).toBe(128_000)
    expect(contextSizeFor("openai/gpt-4.1")).toBe(1_047_576)
    expect(contextSizeFor("anthropic/claude-sonnet-4")).toBe(200_000)
    expect(contextSizeFor("my-local-model")).toBeNull()
    expect(contextSizeFor("my-local-model", { "my-local": 8192 })).toBe(8192)
    expect(contextSizeFor("gpt-4o", { "GPT-4o": 64_000 })).toBe(64_000)
  })

  test("about four characters a token, one per CJK character", () => {
    expect(estimateTokens("abcdefgh")).toBe(2)
    expect(estimateTokens("上下文")).toBe(3)
  })

  test("context overflow is recognised from status text, code or body", () => {
    expect(isContextOverflow({ message: "This model's maximum context length is 8192 tokens", status: 400 })).toBe(true)
    expect(isContextOverflow({ message: "Bad Request", status: 400, code: "context_length_exceeded" })).toBe(true)
    expect(isContextOverflow({ message: "Bad Request", status: 400 })).toBe(false)
  })
})

describe("overflow answers of common servers", () => {
  test("llama.cpp, Gemini and the OpenAI wording are recognised", () => {
    for (const message of [
      "the request exceeds the available context size, try increasing it",
      "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
      "Please reduce the length of the messages or completion."
    ]) {
      expect(isContextOverflow({ message, status: 400 })).toBe(true)
    }
  })
})
