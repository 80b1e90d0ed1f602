/**
 * A healthy multi-step conversation (reasoning, a tool call, its result, a final answer with
 * usage) is byte-identical through the proxy and direct, per protocol: the client gets the same
 * bytes, and the upstream gets the same request bodies. Two scripted servers with one fixed clock
 * play the same script, one reached directly, one through the proxy.
 */
import { startScriptedServer, textStream, toolCallStream, type ScriptedServer } from "@loopguard/ai-sdk/testing"
import { afterEach, describe, expect, test } from "bun:test"
import type { ProtocolName } from "./protocol.js"
import { PATHS, post, PROTOCOLS, records, startRig, HTTP_STACKS, type Rig } from "./proxy.fixture.js"

const CLOCK = () => 1_700_000_000_000
const script = [
  toolCallStream("bash", { command: "ls" }, { reasoning: "Look at the folder first.", usage: { prompt_tokens: 40, completion_tokens: 9 } }),
  textStream("The folder holds two files.", { reasoning: "Now answer.", usage: { prompt_tokens: 60, completion_tokens: 7 } })
]

/** The two requests of the conversation in each protocol's wire shape. */
const conversation = (protocol: ProtocolName): [unknown, unknown] => {
  const ask = "What is in the folder?"
  if (protocol === "chat") {
    const first = { model: "m", stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: ask }], tools: [{ type: "function", function: { name: "bash", parameters: { type: "object" } } }] }
    const call = { role: "assistant", content: null, tool_calls: [{ id: "call_bash", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } }] }
    return [first, { ...first, messages: [...first.messages, call, { role: "tool", tool_call_id: "call_bash", content: "a.txt b.txt" }] }]
  }
  if (protocol === "responses") {
    const first = { model: "m", stream: true, input: [{ type: "message", role: "user", content: [{ type: "input_text", text: ask }] }], tools: [{ type: "function", name: "bash", parameters: { type: "object" } }] }
    const call = { type: "function_call", call_id: "call_bash", name: "bash", arguments: '{"command":"ls"}' }
    return [first, { ...first, input: [...first.input, call, { type: "function_call_output", call_id: "call_bash", output: "a.txt b.txt" }] }]
  }
  if (protocol === "gemini") {
    const first = { contents: [{ role: "user", parts: [{ text: ask }] }], tools: [{ functionDeclarations: [{ name: "bash", parameters: { type: "object" } }] }] }
    const call = { role: "model", parts: [{ functionCall: { name: "bash", args: { command: "ls" } } }] }
    const result = { role: "user", parts: [{ functionResponse: { name: "bash", response: { output: "a.txt b.txt" } } }] }
    return [first, { ...first, contents: [...first.contents, call, result] }]
  }
  const first = { model: "m", max_tokens: 1024, stream: true, messages: [{ role: "user", content: ask }], tools: [{ name: "bash", input_schema: { type: "object" } }] }
  const call = { role: "assistant", content: [{ type: "tool_use", id: "call_bash", name: "bash", input: { command: "ls" } }] }
  const result = { role: "user", content: [{ type: "tool_result", tool_use_id: "call_bash", content: "a.txt b.txt" }] }
  return [first, { ...first, messages: [...first.messages, call, result] }]
}

let direct: ScriptedServer | undefined
let rig: Rig | undefined
afterEach(async () => {
  await direct?.close()
  await rig?.close()
  direct = rig = undefined
})

describe.each(HTTP_STACKS)("%s http stack", (stack) =>
  describe.each(PROTOCOLS)("%s", (protocol) => {
  test("a healthy conversation is byte-identical through the proxy and direct", async () => {
    direct = await startScriptedServer(script, { now: CLOCK })
    rig = await startRig(script, { server: { now: CLOCK }, proxy: { httpStack: stack } })
    const [first, second] = conversation(protocol)
    const directReplies = [await post(`${direct.baseURL}${PATHS[protocol]}`, first), await post(`${direct.baseURL}${PATHS[protocol]}`, second)]
    const proxied = [await post(`${rig.proxy.url}/v1${PATHS[protocol]}`, first), await post(`${rig.proxy.url}/v1${PATHS[protocol]}`, second)]
    expect(proxied.map((r) => r.status)).toEqual([200, 200])
    expect(proxied[0]!.text).toBe(directReplies[0]!.text)
    expect(proxied[1]!.text).toBe(directReplies[1]!.text)
    // Reasoning, the tool call and usage are in what passed through unchanged.
    expect(proxied[0]!.text).toContain("Look at ")
    expect(proxied[0]!.text).toContain("bash")
    expect(proxied[1]!.text).toContain("The fold")
    expect(proxied[1]!.text).toMatch(/"(completion_tokens|output_tokens|candidatesTokenCount)":7/)
    expect(rig.server.requests.map((r) => r.body)).toEqual(direct.requests.map((r) => r.body))
    expect(records(rig.events).map((r) => r.action)).toEqual(["pass", "pass"])
    expect(proxied[1]!.headers.get("x-loopguard-action")).toBe("pass")
    expect(proxied[1]!.headers.get("x-loopguard-session")).toMatch(/^proxy-[0-9a-f]{16}$/)
  }, 60_000)
  })
)

test("the client's auth headers go upstream untouched; paths the proxy does not guard are forwarded as they are", async () => {
  rig = await startRig([textStream("ok")])
  const { status } = await post(`${rig.proxy.url}/v1/chat/completions`, { model: "m", stream: true, messages: [{ role: "user", content: "hi" }] }, {
    authorization: "Bearer sk-client-secret",
    "x-api-key": "client-anthropic-key",
    "x-loopguard-session": "s-123"
  })
  expect(status).toBe(200)
  const seen = rig.server.requests[0]!.headers
  expect(seen["authorization"]).toBe("Bearer sk-client-secret")
  expect(seen["x-api-key"]).toBe("client-anthropic-key")
  // The session header is the proxy's own: it does not go upstream.
  expect(seen["x-loopguard-session"]).toBeUndefined()
  expect(records(rig.events)[0]?.session).toBe("s-123")
  expect(JSON.stringify(rig.events)).not.toContain("sk-client-secret")
  const models = await fetch(`${rig.proxy.url}/v1/models`)
  expect(models.status).toBe(200)
  expect(((await models.json()) as { data: Array<{ id: string }> }).data[0]?.id).toBe("scripted-model")
  const missing = await fetch(`${rig.proxy.url}/v1/nothing-here`)
  expect(missing.status).toBe(404)
}, 60_000)
