/**
 * `proxy.textToolCalls` (off by default): a tool call the model wrote as text becomes a structured
 * call, streamed or not, when the request offered that tool and its arguments are whole; otherwise,
 * and with the switch off, the reply passes as it came. In all three protocols, read by each one's
 * real AI SDK provider.
 */
import { textStream } from "@loopguard/ai-sdk/testing"
import { generateText, jsonSchema, streamText, tool, type ToolSet } from "ai"
import { afterEach, describe, expect, test } from "bun:test"
import { messagesProtocol } from "./protocols/messages.js"
import { responsesProtocol } from "./protocols/responses.js"
import { modelFor, PATHS, post, PROTOCOLS, startRig, type Rig } from "./proxy.fixture.js"
import { eventsOf } from "./sse.js"
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

test("a call the reply only shows, or whose JSON needed repair, stays text; one call not whole keeps every call text", () => {
  const call = '<tool_call>{"name": "bash", "arguments": {"command": "rm -rf /tmp/x"}}</tool_call>'
  const kept = [
    `I am quoting the README:\n\n\`\`\`\n${call}\n\`\`\`\n\nThat is how it is called.`,
    `An example, do NOT run it: ${call}`,
    `The page says:\n> ${call}`,
    `<tool_call>{'name': 'bash', 'arguments': {'command': 'rm -rf /tmp/x'}}</tool_call>`,
    `<tool_call>{"name":"bash","arguments":{"command":"rm -rf /tmp/x"}}}}}</tool_call>`,
    `<tool_call>{"name":"bash","arguments":{"command":"rm -rf /tmp/x"}} extra</tool_call>`,
    `<tool_call>{"name":"bash","arguments":{"command":"ls","command":"rm -rf /tmp/x"}}</tool_call>`,
    `<tool_call>{"name":"bash","arguments":{"command":"ls"}}</tool_call> and <tool_call>{"name":"bash","arguments":{"command":"rm -rf /tmp/two`,
    `<tool_call>{"name":"bash","arguments":{"command":"ls"}}</tool_call> and <tool_call>{"arguments":{"command":"rm -rf /tmp/two`
  ]
  for (const text of kept) expect([text, textCallsIn(text, ["bash"])]).toEqual([text, { calls: [], prose: text }])
})

test("a call the reply only shows does not hold back the one it makes; a call to a tool not offered holds back every call", () => {
  const call = (command: string) => `<tool_call>{"name": "bash", "arguments": {"command": "${command}"}}</tool_call>`
  const quotedThenReal = `Quoting the README:\n\n\`\`\`\n${call("rm -rf /tmp/x")}\n\`\`\`\n\nNow I run it:\n${call("ls")}`
  expect(textCallsIn(quotedThenReal, ["bash"]).calls).toEqual([{ name: "bash", arguments: { command: "ls" } }])
  const thinkingThenReal = `<think>maybe ${call("rm -rf /tmp/x")}</think>\n${call("ls")}`
  expect(textCallsIn(thinkingThenReal, ["bash"]).calls).toEqual([{ name: "bash", arguments: { command: "ls" } }])
  const editThenRun = `<tool_call>{"name": "edit", "arguments": {"path": "run.sh"}}</tool_call>\n${call("sh run.sh")}`
  expect(textCallsIn(editThenRun, ["bash"])).toEqual({ calls: [], prose: editThenRun })
})

/** The offered tool, with no `execute`: the provider hands its calls back instead of running them. */
const tools: ToolSet = { bash: tool({ description: "run a shell command", inputSchema: jsonSchema<{ command: string }>({ type: "object", properties: { command: { type: "string" } }, required: ["command"] }) }) }

describe.each(PROTOCOLS)("%s, read by its AI SDK provider", (protocol) => {
  test("streamed and not: the call written as text arrives as a tool call, the finish says so, the usage is kept", async () => {
    rig = await startRig([textStream(written), textStream(written)], on)
    const model = modelFor(protocol, `${rig.proxy.url}/v1`)
    const streamed = streamText({ model, prompt: "list", tools })
    expect((await streamed.toolCalls).map((c) => [c.toolName, c.input])).toEqual([["bash", { command: "ls -la" }]])
    expect(await streamed.finishReason).toBe("tool-calls")
    expect((await streamed.usage).outputTokens).toBeGreaterThan(0)
    const whole = await generateText({ model, prompt: "list", tools })
    expect(whole.toolCalls.map((c) => [c.toolName, c.input])).toEqual([["bash", { command: "ls -la" }]])
    expect(whole.finishReason).toBe("tool-calls")
    expect(whole.text).toBe("I will list the files.")
    // Each reply's calls get ids of their own: an agent keeps them in its history across turns.
    const ids = [...(await streamed.toolCalls), ...whole.toolCalls].map((c) => c.toolCallId)
    expect(new Set(ids).size).toBe(2)
  }, 60_000)

  test("a call quoted in a code block amid prose stays text, streamed and not", async () => {
    const quoted = `Quoting the README:\n\n\`\`\`\n${written.split("\n")[1]}\n\`\`\`\n\nThat is how it is called.`
    rig = await startRig([textStream(quoted), textStream(quoted)], on)
    const model = modelFor(protocol, `${rig.proxy.url}/v1`)
    const streamed = streamText({ model, prompt: "list", tools })
    expect(await streamed.toolCalls).toEqual([])
    expect(await streamed.text).toBe(quoted)
    const whole = await generateText({ model, prompt: "list", tools })
    expect([whole.toolCalls, whole.finishReason, whole.text]).toEqual([[], "stop", quoted])
  }, 60_000)

  test("a call to a tool the request did not offer stays text", async () => {
    rig = await startRig([textStream(written.replace('"bash"', '"rm_everything"'))], on)
    const result = streamText({ model: modelFor(protocol, `${rig.proxy.url}/v1`), prompt: "list", tools })
    expect(await result.toolCalls).toEqual([])
    expect(await result.finishReason).toBe("stop")
    expect(await result.text).toContain("<tool_call>")
  }, 60_000)
})

test("only tools the client runs with JSON arguments can be named: not a Messages server tool, not a Responses custom or built-in tool", () => {
  const messages = messagesProtocol.conversation({ messages: [], tools: [{ name: "bash", input_schema: {} }, { name: "edit", type: "custom", input_schema: {} }, { type: "web_search_20250305", name: "web_search" }] })
  expect(messages.tools).toEqual(["bash", "edit"])
  const responses = responsesProtocol.conversation({ input: [], tools: [{ type: "function", name: "bash", parameters: {} }, { type: "custom", name: "apply_patch" }, { type: "web_search" }] })
  expect(responses.tools).toEqual(["bash"])
})

test("streamed, the events the proxy adds keep each protocol's numbering: Responses sequence numbers and output indexes, Messages block indexes", async () => {
  rig = await startRig([textStream(written), textStream(written)], on)
  const responses = eventsOf((await post(`${rig.proxy.url}/v1${PATHS.responses}`, { model: "m", stream: true, input: "list", tools: [{ type: "function", name: "bash", parameters: { type: "object" } }] })).text).map((e) => JSON.parse(e.data))
  const numbers = responses.map((e) => e.sequence_number)
  expect(numbers).toEqual(numbers.map((_, i) => numbers[0] + i))
  const added = responses.filter((e) => e.type === "response.output_item.added").map((e) => [e.output_index, e.item.type])
  expect(added).toEqual([[0, "message"], [1, "function_call"]])
  const completed = responses.at(-1)
  expect(completed.type).toBe("response.completed")
  expect(completed.response.output.map((i: any) => i.type)).toEqual(["message", "function_call"])
  const messages = eventsOf((await post(`${rig.proxy.url}/v1${PATHS.messages}`, { model: "m", max_tokens: 100, stream: true, messages: [{ role: "user", content: "list" }], tools: [{ name: "bash", input_schema: { type: "object" } }] })).text).map((e) => JSON.parse(e.data))
  const blocks = messages.filter((e) => e.type === "content_block_start").map((e) => [e.index, e.content_block.type])
  expect(blocks).toEqual([[0, "text"], [1, "tool_use"]])
  expect(messages.filter((e) => e.type === "content_block_stop").map((e) => e.index)).toEqual([0, 1])
  expect(messages.map((e) => e.type).slice(-2)).toEqual(["message_delta", "message_stop"])
  expect(messages.at(-2).delta.stop_reason).toBe("tool_use")
}, 60_000)
