/**
 * How a reply ends when the upstream breaks it, per protocol, as raw streams (what an agent's
 * parser gets). A tool call whose arguments were cut off is never passed on as a call: the step is
 * asked for once more when nothing of it reached the client yet, else the client is told in a
 * notice. A connection that drops after the first byte ends in the protocol's error event.
 */
import { repeatLoop, textStream, toolCallStream } from "@loopguard/ai-sdk/testing"
import { afterEach, describe, expect, test } from "bun:test"
import { PATHS, post, PROTOCOLS, records, startRig, HTTP_STACKS, type Rig } from "./proxy.fixture.js"
import type { ProtocolName } from "./protocol.js"

let rig: Rig | undefined
afterEach(async () => {
  await rig?.close()
  rig = undefined
})

const request = (protocol: ProtocolName) =>
  protocol === "chat"
    ? { model: "m", stream: true, messages: [{ role: "user", content: "list" }] }
    : protocol === "responses"
      ? { model: "m", stream: true, input: "list" }
      : protocol === "gemini"
        ? { contents: [{ role: "user", parts: [{ text: "list" }] }] }
        : { model: "m", stream: true, max_tokens: 256, messages: [{ role: "user", content: "list" }] }

/** How each protocol's stream is well-formed at its end. */
const WELL_FORMED: Readonly<Record<ProtocolName, RegExp>> = {
  chat: /data: \[DONE\]\n\n$/,
  responses: /^event: response\.created[\s\S]*response\.completed/,
  messages: /^event: message_start[\s\S]*message_stop/,
  gemini: /"finishReason":"STOP"[^\n]*\r\n\r\n$/
}

/**
 * What a client's parser would trip on: a Messages block used before it started (or started out of
 * order), a Responses item index past the items the reply ends with, sequence numbers that skip.
 */
const framingProblems = (protocol: ProtocolName, text: string): Array<string> => {
  const events = text.split("\n\n").flatMap((block) => {
    const data = /^data: (\{.*)$/m.exec(block)?.[1]
    return data === undefined ? [] : [JSON.parse(data)]
  })
  const problems: Array<string> = []
  if (protocol === "messages") {
    const started: Array<number> = []
    for (const e of events) {
      if (e.type === "content_block_start") {
        if (e.index !== started.length) problems.push(`block ${e.index} started after ${started.length} blocks`)
        started.push(e.index)
      } else if ((e.type === "content_block_delta" || e.type === "content_block_stop") && !started.includes(e.index)) problems.push(`${e.type} of block ${e.index}, never started`)
    }
  }
  if (protocol === "responses") {
    events.forEach((e, at) => {
      if (e.sequence_number !== at) problems.push(`event ${at} numbered ${e.sequence_number}`)
    })
    const items = events.at(-1)?.response?.output?.length ?? 0
    for (const e of events) if (typeof e.output_index === "number" && e.output_index >= items) problems.push(`output_index ${e.output_index} of ${items} items`)
  }
  return problems
}

/** Gemini sends a call's arguments whole, as one object: none can arrive cut off. */
const STREAMED_ARGUMENTS = PROTOCOLS.filter((p) => p !== "gemini")

const cutOff = toolCallStream("bash", '{"command": "ls -la /very/long/pa', { finish: "length", pieces: 3 })
const whole = toolCallStream("bash", { command: "ls -la" })

describe.each(HTTP_STACKS)("%s http stack", (stack) => {
  describe.each(STREAMED_ARGUMENTS)("%s", (protocol) => {
  test("cut-off arguments before any byte was sent: the step is asked for again, the client gets the whole call", async () => {
    rig = await startRig([cutOff, whole], { proxy: { httpStack: stack } })
    const reply = await post(`${rig.proxy.url}/v1${PATHS[protocol]}`, request(protocol))
    expect(reply.status).toBe(200)
    expect(reply.text).not.toContain("very/long")
    expect(reply.text).toContain("ls -la")
    expect(rig.server.requests.length).toBe(2)
  }, 60_000)

  test("cut-off arguments twice: no call reaches the client, a notice does, and the stream ends well-formed", async () => {
    rig = await startRig([cutOff, cutOff], { proxy: { httpStack: stack } })
    const reply = await post(`${rig.proxy.url}/v1${PATHS[protocol]}`, request(protocol))
    expect(reply.text).not.toContain("very/long")
    expect(reply.text).toContain("was cut off before its arguments were complete")
    expect(reply.text).toMatch(WELL_FORMED[protocol])
    expect(framingProblems(protocol, reply.text)).toEqual([])
    expect(rig.server.requests.length).toBe(2)
    expect(records(rig.events)[0]?.outcome).toBe("cut")
  }, 60_000)

  test("the connection drops mid-arguments after text reached the client: the protocol's error event, not a finished turn with a notice", async () => {
    // Text (one event), then the call's arguments in 8 pieces; the line drops after 4 of them.
    const dropped = { ...toolCallStream("bash", { command: "echo one && ls -la /tmp" }, { text: "Listing the files.", pieces: 8 }), resetAfterChunks: 5 }
    rig = await startRig([dropped, whole], { proxy: { httpStack: stack } })
    const reply = await post(`${rig.proxy.url}/v1${PATHS[protocol]}`, request(protocol))
    expect(reply.status).toBe(200)
    expect(reply.text).toContain("Listing")
    expect(reply.text).not.toContain("was cut off before its arguments were complete")
    expect(reply.text).not.toMatch(/response\.completed|message_stop|"finish_reason":"(?:stop|tool_calls)"/)
    // The error a client's SDK raises (and retries): a Chat client reads the broken connection's own code.
    expect(reply.text).toMatch(protocol === "chat" ? /data: \{"error":\{"message":"the upstream connection[^\n]*"code":"ECONNRESET"/ : /event: error\ndata: /)
    expect(records(rig.events)[0]?.outcome).toBe("failed")
    // Text had reached the client: the step is not asked for again.
    expect(rig.server.requests.length).toBe(1)
  }, 60_000)

  test("the connection drops mid-arguments twice with nothing sent: asked for once more, then the protocol's error event", async () => {
    const dropped = { ...toolCallStream("bash", { command: "echo one && ls -la /tmp" }, { pieces: 8 }), resetAfterChunks: 4 }
    rig = await startRig([dropped, dropped], { proxy: { httpStack: stack } })
    const reply = await post(`${rig.proxy.url}/v1${PATHS[protocol]}`, request(protocol))
    expect(reply.text).not.toContain("was cut off before its arguments were complete")
    expect(reply.text).not.toContain("ls -la")
    expect(reply.text).toMatch(protocol === "chat" ? /data: \{"error":\{"message":"the upstream connection/ : /event: error\ndata: /)
    expect(rig.server.requests.length).toBe(2)
    expect(records(rig.events)[0]?.outcome).toBe("failed")
  }, 60_000)

  test("cut-off arguments twice: the reply the proxy closes keeps the upstream's own usage", async () => {
    const billed = { ...cutOff, usage: { prompt_tokens: 1234, completion_tokens: 567 } }
    rig = await startRig([billed, billed], { proxy: { httpStack: stack } })
    const body = protocol === "chat" ? { ...request(protocol), stream_options: { include_usage: true } } : request(protocol)
    const reply = await post(`${rig.proxy.url}/v1${PATHS[protocol]}`, body)
    expect(reply.text).toContain("was cut off before its arguments were complete")
    expect(reply.text).toMatch(/"(?:completion_tokens|output_tokens)":567/)
  }, 60_000)

  test("an event the proxy cannot read while a call is open: the call is not passed on as whole (with the arguments it lost)", async () => {
    const unreadable = { type: "stream" as const, chunks: [{ toolCall: { id: "call_a", name: "write_file", arguments: "" } }, { raw: '{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"path\\":\\"/a\\"}"}}]}' }], finish: "tool_calls" as const }
    rig = await startRig([unreadable, unreadable], { proxy: { httpStack: stack } })
    const reply = await post(`${rig.proxy.url}/v1${PATHS[protocol]}`, request(protocol))
    expect(reply.text).toContain("the call to write_file was cut off")
    expect(reply.text).not.toMatch(/"tool_calls"|"tool_use"|"function_call"/)
    expect(rig.server.requests.length).toBe(2)
    expect(records(rig.events)[0]?.outcome).toBe("cut")
  }, 60_000)

  test("an upstream error event mid-arguments: asked for again; failing again, the client gets the error, not a finished turn", async () => {
    const errorEvent = { chat: '{"error":{"message":"upstream model crashed","type":"server_error"}}', responses: '{"type":"error","code":"server_error","message":"upstream model crashed"}', messages: '{"type":"error","error":{"type":"overloaded_error","message":"upstream model crashed"}}' }[protocol as "chat" | "responses" | "messages"]
    const broken = { type: "stream" as const, chunks: [{ toolCall: { id: "call_a", name: "write_file", arguments: '{"path":"/a","content":"ab' } }, { raw: errorEvent }], finish: null }
    rig = await startRig([broken, broken], { proxy: { httpStack: stack } })
    const reply = await post(`${rig.proxy.url}/v1${PATHS[protocol]}`, request(protocol))
    expect(reply.text).toContain("upstream model crashed")
    expect(reply.text).not.toContain("was cut off")
    expect(reply.text).not.toContain('"content":"ab')
    expect(rig.server.requests.length).toBe(2)
    expect(records(rig.events)[0]?.outcome).toBe("failed")
  }, 60_000)

  test("arguments that are whole JSON but no object, twice: not passed on, and the notice says what was wrong", async () => {
    const listArgs = toolCallStream("bash", "[1,2]", { pieces: 2 })
    rig = await startRig([listArgs, listArgs], { proxy: { httpStack: stack } })
    const reply = await post(`${rig.proxy.url}/v1${PATHS[protocol]}`, request(protocol))
    expect(reply.text).toContain("the call to bash came with arguments that are not a JSON object")
    expect(reply.text).not.toContain("was cut off")
    expect(reply.text).toMatch(WELL_FORMED[protocol])
    expect(rig.server.requests.length).toBe(2)
    expect(records(rig.events)[0]?.detail).toBe("the arguments of a call to bash were not a JSON object")
  }, 60_000)

  test("arguments naming one key twice, twice: not passed on with the last value, and the notice says what was wrong", async () => {
    const twice = toolCallStream("bash", '{"command":"ls","command":"rm -rf /tmp/x"}', { pieces: 2 })
    rig = await startRig([twice, twice], { proxy: { httpStack: stack } })
    const reply = await post(`${rig.proxy.url}/v1${PATHS[protocol]}`, request(protocol))
    expect(reply.text).toContain("the call to bash named the same argument twice")
    expect(reply.text).not.toContain("rm -rf")
    expect(reply.text).toMatch(WELL_FORMED[protocol])
    expect(rig.server.requests.length).toBe(2)
    expect(records(rig.events)[0]?.detail).toBe("the arguments of a call to bash named a key twice")
  }, 60_000)

  test("cut-off arguments after text reached the client: not asked again, the client is told", async () => {
    rig = await startRig([toolCallStream("bash", '{"command": "ls -la /very/long/pa', { finish: "length", text: "Let me look at the folder." }), textStream("unused")], { proxy: { httpStack: stack } })
    const reply = await post(`${rig.proxy.url}/v1${PATHS[protocol]}`, request(protocol))
    expect(reply.text).toContain("Let me l")
    expect(reply.text).not.toContain("very/long")
    expect(reply.text).toContain("was cut off before its arguments were complete")
    expect(rig.server.requests.length).toBe(1)
  }, 60_000)

  })

  describe.each(["chat", "responses"] as const)("%s, not streamed", (protocol) => {
  const unstreamed = (p: ProtocolName) => ({ ...request(p), stream: false })

  test("cut-off arguments: the step is asked for again, the client gets the whole call", async () => {
    rig = await startRig([cutOff, whole], { proxy: { httpStack: stack } })
    const reply = await post(`${rig.proxy.url}/v1${PATHS[protocol]}`, unstreamed(protocol))
    expect(reply.status).toBe(200)
    expect(reply.text).not.toContain("very/long")
    expect(reply.text).toContain("ls -la")
    expect(rig.server.requests.length).toBe(2)
  }, 60_000)

  test("cut-off arguments twice: no call reaches the client, the notice does, in a reply that parses", async () => {
    rig = await startRig([cutOff, cutOff], { proxy: { httpStack: stack } })
    const reply = await post(`${rig.proxy.url}/v1${PATHS[protocol]}`, unstreamed(protocol))
    expect(reply.text).not.toContain("very/long")
    const json = JSON.parse(reply.text)
    const calls = protocol === "chat" ? (json.choices[0].message.tool_calls ?? []) : json.output.filter((i: { type: string }) => i.type === "function_call")
    expect(calls).toEqual([])
    expect(reply.text).toContain("was cut off before its arguments were complete")
    expect(rig.server.requests.length).toBe(2)
    expect(records(rig.events)[0]?.outcome).toBe("cut")
  }, 60_000)

  test("arguments that are whole JSON but no object, twice: no call reaches the client, and the notice says what was wrong", async () => {
    const nullArgs = toolCallStream("bash", "null")
    rig = await startRig([nullArgs, nullArgs], { proxy: { httpStack: stack } })
    const reply = await post(`${rig.proxy.url}/v1${PATHS[protocol]}`, unstreamed(protocol))
    expect(reply.text).toContain("the call to bash came with arguments that are not a JSON object")
    expect(reply.text).not.toContain("was cut off")
    expect(records(rig.events)[0]?.detail).toBe("the arguments of a call to bash were not a JSON object")
  }, 60_000)

  test("arguments naming one key twice, twice: no call reaches the client, and the notice says what was wrong", async () => {
    const twice = toolCallStream("bash", '{"command":"ls","command":"rm -rf /tmp/x"}')
    rig = await startRig([twice, twice], { proxy: { httpStack: stack } })
    const reply = await post(`${rig.proxy.url}/v1${PATHS[protocol]}`, unstreamed(protocol))
    expect(reply.text).toContain("the call to bash named the same argument twice")
    expect(reply.text).not.toContain("rm -rf")
    expect(records(rig.events)[0]?.detail).toBe("the arguments of a call to bash named a key twice")
  }, 60_000)
  })

  describe.each(PROTOCOLS)("%s", (protocol) => {
  test("a connection reset after the first byte reached the client ends the stream with the protocol's error event", async () => {
    rig = await startRig([textStream("Some words come first, then the line drops.", { chunkSize: 4, resetAfterChunks: 3 })], { proxy: { httpStack: stack } })
    const reply = await post(`${rig.proxy.url}/v1${PATHS[protocol]}`, request(protocol))
    expect(reply.status).toBe(200)
    expect(reply.text).toContain("Some")
    expect(reply.text).toMatch(protocol === "chat" ? /data: \{"error":\{"message":"the upstream connection/ : protocol === "gemini" ? /data: \{"error":\{"code":500,"message":"the upstream connection/ : /event: error\ndata: /)
    // Gemini's own SDK reads an error only as a bare JSON object: the event is followed by one.
    if (protocol === "gemini") expect(reply.text).toMatch(/\r\n\r\n\{"error":\{"code":500,"message":"the upstream connection[^\n]*\}\}\n$/)
    expect(records(rig.events)[0]?.outcome).toBe("failed")
    expect(rig.server.requests.length).toBe(1)
  }, 60_000)

  test("a reply that loops after a whole call (held back) is cut: the call passes, the reply opens and ends well-formed", async () => {
    const loop = repeatLoop("and then the same words again and again here", 200, { finish: "stop" })
    rig = await startRig([{ ...loop, chunks: [{ toolCall: { id: "call_x", name: "bash", arguments: '{"command":"ls"}' } }, ...loop.chunks] }], { proxy: { httpStack: stack } })
    const reply = await post(`${rig.proxy.url}/v1${PATHS[protocol]}`, request(protocol))
    expect(reply.text).toContain("[loopguard: this reply started repeating itself")
    expect(reply.text).toContain(protocol === "gemini" ? `"functionCall":{"name":"bash"` : "call_x")
    expect(reply.text).toMatch(WELL_FORMED[protocol])
    // Every item the end names was opened before it (Responses), every block started before it stops (Messages).
    if (protocol === "responses") expect(reply.text.indexOf('"type":"response.output_item.added","sequence_number":2')).toBeGreaterThan(-1)
    if (protocol === "messages") expect(reply.text.indexOf('"content_block_start","index":1')).toBeGreaterThan(-1)
  }, 60_000)

  })
})
