import { describe, expect, test } from "bun:test"
import { type AssistantMessage, type StreamPart } from "@loopguard/core/model"
import { parseTrace, traceToSteps } from "@loopguard/core/trace"
import { Effect, Layer, Stream } from "effect"
import { LLM } from "../llm/LLM.js"
import { Tools } from "../tools/Tools.js"
import { layerReplay } from "./layer.js"
import { ReplayCursor } from "./ReplayCursor.js"
import { makeReplayLLM } from "./ReplayLLM.js"
import { makeReplayTools, recordedToolResults } from "./ReplayTools.js"
import { replyToParts } from "./replay-parts.js"

const trace = (lines: ReadonlyArray<object>): Array<AssistantMessage> => {
  const parsed = parseTrace(lines.map((l) => JSON.stringify(l)).join("\n"), "t.jsonl")
  expect(parsed.errors).toEqual([])
  return traceToSteps(parsed.lines).steps.map((s) => s.reply)
}

const collect = (llm: ReturnType<typeof makeReplayLLM>) => Effect.runPromise(Stream.runCollect(llm.stream({ messages: [], tools: [] })))

describe("replyToParts", () => {
  test("reasoning, text and a call's arguments in deltas of at most chunkChars, the call, then the recorded finish and usage", () => {
    const text = "x".repeat(150)
    const [reply] = trace([
      { type: "user", text: "go" },
      { type: "assistant", reasoning: "think", text, toolCalls: [{ id: "c1", name: "bash", input: { command: "ls" } }], finish: "length", usage: { outputTokens: 7 } }
    ])
    const parts = replyToParts(reply!, { chunkChars: 64 })
    const deltas = parts.filter((p): p is Extract<StreamPart, { type: "text-delta" }> => p.type === "text-delta")
    expect(deltas.map((d) => d.text.length)).toEqual([64, 64, 22])
    expect(deltas.map((d) => d.text).join("")).toBe(text)
    expect(parts.map((p) => p.type)).toEqual(["start", "reasoning-delta", "text-delta", "text-delta", "text-delta", "tool-input-start", "tool-input-delta", "tool-call", "finish"])
    expect(parts.filter((p) => p.type === "tool-input-delta")).toEqual([{ type: "tool-input-delta", id: "c1", delta: '{"command":"ls"}' }])
    expect(parts.at(-2)).toEqual({ type: "tool-call", id: "c1", name: "bash", input: { command: "ls" } })
    expect(parts.at(-1)).toEqual({ type: "finish", finish: "length", usage: { outputTokens: 7 } })
  })

  test("finish defaults to tool-calls with calls and stop without; a recorded error comes last", () => {
    const [a, b] = trace([
      { type: "assistant", toolCalls: [{ id: "c1", name: "bash", input: {} }] },
      { type: "assistant", text: "done", error: { message: "boom", status: 400 } }
    ])
    expect(replyToParts(a!).at(-1)).toEqual({ type: "finish", finish: "tool-calls" })
    const pb = replyToParts(b!)
    expect(pb.at(-2)).toEqual({ type: "finish", finish: "stop" })
    expect(pb.at(-1)).toEqual({ type: "error", error: { message: "boom", status: 400 } })
  })

  test("never splits a surrogate pair", () => {
    const [reply] = trace([{ type: "assistant", text: "😀".repeat(5) }])
    const texts = replyToParts(reply!, { chunkChars: 2 }).flatMap((p) => (p.type === "text-delta" ? [p.text] : []))
    expect(texts).toEqual(["😀😀", "😀😀", "😀"])
  })
})

describe("replay LLM and tools", () => {
  const steps = trace([
    { type: "user", text: "go" },
    { type: "assistant", text: "a", toolCalls: [{ id: "c0", name: "bash", input: { command: "make" } }] },
    { type: "tool-result", id: "c0", name: "bash", output: "fail", exitCode: 2 },
    { type: "assistant", text: "b", toolCalls: [{ id: "c0", name: "edit", input: {} }] },
    { type: "tool-result", id: "c0", name: "edit", output: "ok", path: "a.ts", diff: "+x" },
    { type: "assistant", text: "c", toolCalls: [{ id: "c9", name: "bash", input: {} }] }
  ])

  test("the i-th request streams the i-th step, and a request past the end is an error part", async () => {
    const llm = makeReplayLLM(steps)
    const texts = async () => (await collect(llm)).flatMap((p) => (p.type === "text-delta" ? [p.text] : []))
    expect(await texts()).toEqual(["a"])
    expect(await texts()).toEqual(["b"])
    expect(await texts()).toEqual(["c"])
    const past = await collect(llm)
    expect(past.map((p) => p.type)).toEqual(["error"])
  })

  test("results are looked up in the cursor's step even when ids repeat; unanswered calls complete empty", async () => {
    const cursor = new ReplayCursor()
    const tools = makeReplayTools(recordedToolResults(steps), { cursor })
    expect(tools.specs.map((s) => s.name)).toEqual(["bash", "edit"])
    cursor.step = 1
    expect(await Effect.runPromise(tools.execute({ id: "c0", name: "edit", input: {} }))).toEqual({ state: "completed", output: "ok", path: "a.ts", diff: "+x" })
    cursor.step = 0
    const failed = await Effect.runPromise(tools.execute({ id: "c0", name: "bash", input: {} }))
    expect(failed).toMatchObject({ state: "error", output: "fail", exitCode: 2 })
    cursor.step = 2
    expect(await Effect.runPromise(tools.execute({ id: "c9", name: "bash", input: {} }))).toEqual({ state: "completed", output: "" })
    expect(await Effect.runPromise(tools.execute({ id: "nope", name: "bash", input: {} }))).toEqual({ state: "completed", output: "" })
  })

  test("a result with error: true and no exit code replays as an error", async () => {
    const s = trace([
      { type: "assistant", toolCalls: [{ id: "c1", name: "open", input: {} }] },
      { type: "tool-result", id: "c1", output: "No such file", error: true }
    ])
    const tools = makeReplayTools(recordedToolResults(s))
    expect((await Effect.runPromise(tools.execute({ id: "c1", name: "open", input: {} }))).state).toBe("error")
  })

  test("no exit code recorded: the one the harness printed decides, before any sign in the output", async () => {
    const s = trace([
      { type: "assistant", toolCalls: [{ id: "c1", name: "execute_bash", input: { command: "make" } }, { id: "c2", name: "execute_bash", input: { command: "grep -rn Traceback ." } }] },
      { type: "tool-result", id: "c1", output: "make: *** [all] Error 2\n[The command completed with exit code 2.]" },
      { type: "tool-result", id: "c2", output: "log.txt:3: Traceback (most recent call last):\n[The command completed with exit code 0.]" }
    ])
    const tools = makeReplayTools(recordedToolResults(s))
    const failed = await Effect.runPromise(tools.execute({ id: "c1", name: "execute_bash", input: { command: "make" } }))
    expect(failed).toMatchObject({ state: "error", exitCode: 2 })
    // The harness said 0: a traceback quoted in the output is no failure.
    const ok = await Effect.runPromise(tools.execute({ id: "c2", name: "execute_bash", input: { command: "grep -rn Traceback ." } }))
    expect(ok).toMatchObject({ state: "completed", exitCode: 0 })
  })

  test("layerReplay shares the cursor: the tool answer follows the step the LLM is streaming", async () => {
    const program = Effect.gen(function* () {
      const llm = yield* LLM
      const tools = yield* Tools
      yield* Stream.runDrain(llm.stream({ messages: [], tools: [] }))
      yield* Stream.runDrain(llm.stream({ messages: [], tools: [] }))
      return yield* tools.execute({ id: "c0", name: "edit", input: {} })
    })
    const r = await Effect.runPromise(Effect.provide(program, layerReplay(steps) as Layer.Layer<LLM | Tools>))
    expect(r.output).toBe("ok")
  })
})
