import { describe, expect, test } from "bun:test"
import { layerOpenAICompatible } from "@loopguard/ai-sdk"
import { DEFAULT_CONFIG } from "@loopguard/effect"
import { makeMemoryStore } from "@loopguard/effect/store"
import { Effect } from "effect"
import type { Endpoint } from "../endpoint.js"
import { makeRenderer, makeStyle } from "../render/index.js"
import { initialChatState, type ChatContext } from "./chat-context.js"
import { onInterrupt, readTurn } from "./chat-loop.js"
import type { LineRead, LineSource } from "./line-source.js"

const endpoint: Endpoint = {
  config: DEFAULT_CONFIG,
  llm: layerOpenAICompatible({ baseURL: "http://127.0.0.1:9/v1", modelId: "m" }),
  modelId: "m",
  baseURL: "http://127.0.0.1:9/v1",
  apiKeyEnv: "OPENAI_API_KEY",
  secrets: [],
  cwd: "/tmp",
  tools: [],
  system: "sys",
  storeTarget: null,
  store: undefined
}

/** A chat fed from a list of reads, everything it shows collected. */
const chatWith = (reads: ReadonlyArray<LineRead>) => {
  const queue = [...reads]
  let shown = ""
  const lines: LineSource = { terminal: true, read: async () => queue.shift() ?? { type: "end" }, close: () => {} }
  const ctx: ChatContext = {
    endpoint,
    store: makeMemoryStore(),
    sessionId: "s1",
    lines,
    renderer: makeRenderer({ mode: "human", style: makeStyle(false), out: (t) => (shown += t), price: null }),
    style: makeStyle(false),
    policy: "ask",
    env: {}
  }
  return { ctx, state: initialChatState(), shown: () => shown }
}

const line = (text: string): LineRead => ({ type: "line", text })

describe("readTurn", () => {
  test("blank lines are skipped, mistakes and commands answered, then a prompt becomes the turn", async () => {
    const chat = chatWith([line(""), line("/bogus"), line("/help"), line("  fix it  ")])
    const input = await Effect.runPromise(readTurn(chat.ctx, chat.state))
    expect(input).toMatchObject({ sessionId: "s1", prompt: "fix it", system: "sys" })
    expect(input?.signal?.aborted).toBe(false)
    expect(chat.state.lastPrompt).toBe("fix it")
    expect(chat.shown()).toContain("unknown command /bogus")
    expect(chat.shown()).toContain("/export FILE")
  })
  test("one Ctrl-C at the prompt warns, two in a row end the chat", async () => {
    const chat = chatWith([{ type: "interrupt" }, line(""), { type: "interrupt" }, { type: "interrupt" }])
    expect(await Effect.runPromise(readTurn(chat.ctx, chat.state))).toBeNull()
    expect(chat.state.end).toBe("interrupt")
    expect(chat.shown().match(/Ctrl-C again/g)).toHaveLength(2)
  })
  test("/quit and the end of input end the chat, each saying how", async () => {
    const quit = chatWith([line("/quit")])
    expect(await Effect.runPromise(readTurn(quit.ctx, quit.state))).toBeNull()
    expect(quit.state.end).toBe("quit")
    const end = chatWith([])
    expect(await Effect.runPromise(readTurn(end.ctx, end.state))).toBeNull()
    expect(end.state.end).toBe("end")
  })
  test("/retry with nothing sent yet says so and reads on", async () => {
    const chat = chatWith([line("/retry"), line("/quit")])
    expect(await Effect.runPromise(readTurn(chat.ctx, chat.state))).toBeNull()
    expect(chat.shown()).toContain("nothing to retry yet")
  })
})

test("Ctrl-C as a signal: the first cancels the running turn, the next (or one between turns) quits", async () => {
  const chat = chatWith([line("go")])
  expect(onInterrupt(chat.ctx, chat.state)).toBe("quit")
  const input = await Effect.runPromise(readTurn(chat.ctx, chat.state))
  expect(onInterrupt(chat.ctx, chat.state)).toBe("cancelled")
  expect(input?.signal?.aborted).toBe(true)
  expect(onInterrupt(chat.ctx, chat.state)).toBe("quit")
})
