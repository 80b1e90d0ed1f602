/**
 * `toolCaps` through each protocol's real AI SDK provider, the reply streamed and not: an agent
 * loop whose model keeps asking for one tool runs it up to its cap, then gets the refusal as the
 * reply's text in place of the call, so the loop ends without running it again. The session's record
 * of a whole reply keeps its calls, as a streamed one's does.
 */
import { toolCallStream } from "@loopguard/ai-sdk/testing"
import { generateText, jsonSchema, stepCountIs, streamText, tool } from "ai"
import { afterEach, describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { modelFor, PROTOCOLS, records, startRig, type Rig } from "./proxy.fixture.js"
import { makeMemoryStore } from "@loopguard/effect/store"

let rig: Rig | undefined
afterEach(async () => {
  await rig?.close()
  rig = undefined
})

const capped = { maxCallsPerTool: null, perTool: { bash: 2 } }

/** A bash tool that counts its runs. */
const bashTool = () => {
  const runs: Array<string> = []
  const bash = tool({
    description: "run a command",
    inputSchema: jsonSchema<{ command: string }>({ type: "object", properties: { command: { type: "string" } }, required: ["command"] }),
    execute: async ({ command }) => {
      runs.push(command)
      return `ran ${command}`
    }
  })
  return { runs, tools: { bash } }
}

/** The calls of each assistant message the session store holds, once it holds `replies` of them (what `sessions show` lists). */
const storedCalls = async (store: ReturnType<typeof makeMemoryStore>, session: string, replies: number): Promise<Array<number>> => {
  for (let i = 0; ; i++) {
    const assistant = (await Effect.runPromise(store.messages(session))).filter((m) => m.role === "assistant")
    if (assistant.length >= replies || i === 100) return assistant.map((m) => m.parts.filter((p) => p.type === "tool").length)
    await Bun.sleep(20)
  }
}

describe.each(PROTOCOLS)("%s", (protocol) => {
  test.each([false, true])("streamed %p: the tool runs up to its cap, then the agent gets the refusal and stops", async (streamed) => {
    const store = makeMemoryStore()
    rig = await startRig(() => toolCallStream("bash", { command: "ls" }), { config: (c) => ({ ...c, toolCaps: capped }), proxy: { store } })
    const { runs, tools } = bashTool()
    const headers = { "x-loopguard-session": `caps-${protocol}` }
    const options = { model: modelFor(protocol, `${rig.proxy.url}/v1`), tools, headers, prompt: "list the files", stopWhen: stepCountIs(6), maxRetries: 0 }
    const text = streamed ? await streamText(options).text : (await generateText(options)).text
    expect(runs).toEqual(["ls", "ls"])
    expect(text).toContain("[loopguard: not run: bash reached its cap of 2 calls")
    expect(rig.server.requests.length).toBe(3)
    expect(records(rig.events).map((r) => r.outcome)).toEqual(["completed", "completed", "cut"])
    expect(await storedCalls(store, `caps-${protocol}`, 3)).toEqual([1, 1, 0])
  }, 60_000)
})
