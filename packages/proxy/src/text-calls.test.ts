/**
 * `proxy.textToolCalls` (off by default): a tool call the model wrote as text becomes a structured
 * call, streamed or not, when the request offered that tool and its arguments are whole; otherwise,
 * and with the switch off, the reply passes as it came.
 */
import { textStream } from "@loopguard/ai-sdk/testing"
import { afterEach, expect, test } from "bun:test"
import { post, startRig, type Rig } from "./proxy.fixture.js"
import { textCallsIn } from "./text-calls.js"

let rig: Rig | undefined
afterEach(async () => {
  await rig?.close()
  rig = undefined
})

const written = 'I will list the files.\n<tool_call>{"name": "bash", "arguments": {"command": "ls -la"}}</tool_call>'
const request = (stream: boolean) => ({
  model: "m",
  stream,
  stream_options: { include_usage: true },
  messages: [{ role: "user", content: "list" }],
  tools: [{ type: "function", function: { name: "bash", parameters: { type: "object" } } }]
})
const on = { config: (c: any) => ({ ...c, proxy: { ...c.proxy, textToolCalls: true } }) }

/** The tool calls and finish reason of a streamed Chat Completions reply. */
const streamedCalls = (sse: string) => {
  const chunks = sse.split("\n\n").filter((e) => e.startsWith("data: {")).map((e) => JSON.parse(e.slice(6)))
  const calls = chunks.flatMap((c) => c.choices?.[0]?.delta?.tool_calls ?? [])
  const finish = chunks.map((c) => c.choices?.[0]?.finish_reason).filter((f) => typeof f === "string")
  return { calls, finish, usage: chunks.some((c) => c.usage !== undefined && c.choices?.length === 0) }
}

test("streamed: a text call naming an offered tool ends the reply as a structured call", async () => {
  rig = await startRig([textStream(written)], on)
  const reply = await post(`${rig.proxy.url}/v1/chat/completions`, request(true))
  const { calls, finish, usage } = streamedCalls(reply.text)
  expect(calls.map((c: any) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([["bash", { command: "ls -la" }]])
  expect(finish).toEqual(["tool_calls"])
  expect(usage).toBe(true)
  expect(reply.text.endsWith("data: [DONE]\n\n")).toBe(true)
}, 60_000)

test("not streamed: the same, in the JSON reply", async () => {
  rig = await startRig([textStream(written)], on)
  const reply = JSON.parse((await post(`${rig.proxy.url}/v1/chat/completions`, request(false))).text)
  expect(reply.choices[0].finish_reason).toBe("tool_calls")
  expect(reply.choices[0].message.tool_calls[0].function.name).toBe("bash")
  expect(reply.choices[0].message.content).toBe("I will list the files.")
}, 60_000)

test("off by default: the reply passes as it came", async () => {
  rig = await startRig([textStream(written)])
  const { calls, finish } = streamedCalls((await post(`${rig.proxy.url}/v1/chat/completions`, request(true))).text)
  expect(calls).toEqual([])
  expect(finish).toEqual(["stop"])
}, 60_000)

test("only offered tools, and only whole arguments", () => {
  expect(textCallsIn(written, ["edit"]).calls).toEqual([])
  expect(textCallsIn('<tool_call>{"name": "bash", "arguments": {"command": "ls -la', ["bash"]).calls).toEqual([])
  expect(textCallsIn(written, ["bash"]).prose).toBe("I will list the files.")
})
