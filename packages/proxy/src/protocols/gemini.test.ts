import { repeatLoop, textStream } from "@loopguard/ai-sdk/testing"
import { afterEach, describe, expect, test } from "bun:test"
import { upstreamHeaders } from "../http-util.js"
import { post, records, startRig, type Rig } from "../proxy.fixture.js"
import { protocolOf } from "../routes.js"
import { parseEvent } from "../sse.js"
import { geminiProtocol, geminiRequestOf } from "./gemini.js"

const gemini = geminiProtocol("gemini-2.5-pro", true)

/** Gemini CLI's shape: a session-context turn, the user's ask, calls without ids answered by name. */
const body = {
  systemInstruction: { parts: [{ text: "You are a coding agent." }] },
  contents: [
    { role: "user", parts: [{ text: "<session_context>…</session_context>" }] },
    { role: "user", parts: [{ text: "fix the build" }] },
    { role: "model", parts: [{ text: "thinking it over", thought: true }, { text: "Running it twice." }, { functionCall: { name: "run_shell_command", args: { command: "npm test" } } }, { functionCall: { name: "run_shell_command", args: { command: "npm run build" } } }] },
    { role: "user", parts: [{ functionResponse: { name: "run_shell_command", response: { output: "1 failing" } } }, { functionResponse: { name: "run_shell_command", response: { error: "exit 2" } } }] }
  ],
  tools: [{ functionDeclarations: [{ name: "run_shell_command" }, { name: "read_file" }] }]
}

describe("the Gemini protocol", () => {
  test("the conversation: system, first user turn, calls answered in order by name, errors kept as errors", () => {
    const c = gemini.conversation(body)
    expect(c.system).toBe("You are a coding agent.")
    expect(c.firstUser).toBe("<session_context>…</session_context>")
    expect(c.model).toBe("gemini-2.5-pro")
    expect(c.stream).toBe(true)
    expect(c.tools).toEqual(["run_shell_command", "read_file"])
    const step = c.messages.find((m) => m.role === "assistant")!
    expect(step.role === "assistant" && step.parts.map((p) => p.type)).toEqual(["reasoning", "text", "tool", "tool"])
    const tools = step.role === "assistant" ? step.parts.filter((p) => p.type === "tool") : []
    expect(tools.map((t) => t.type === "tool" && [t.input, t.state, t.output])).toEqual([
      [{ command: "npm test" }, "completed", "1 failing"],
      [{ command: "npm run build" }, "error", "exit 2"]
    ])
    expect([c.structured, c.utility]).toEqual([false, false])
  })

  test("a request for JSON (a response type or schema) without tools is a utility call, not an agent step; snake_case is read too", () => {
    const { tools: _, ...toolless } = body
    expect(gemini.conversation({ ...toolless, generationConfig: { responseMimeType: "application/json" } }).utility).toBe(true)
    expect(gemini.conversation({ ...toolless, generation_config: { response_json_schema: {} } }).utility).toBe(true)
    // With tools it is still an agent step, judged; only its reply is not read by the repetition guard.
    const withTools = gemini.conversation({ ...body, generationConfig: { responseSchema: {} } })
    expect([withTools.structured, withTools.utility]).toEqual([true, false])
    expect(gemini.conversation({ system_instruction: { parts: [{ text: "s" }] }, contents: [] }).system).toBe("s")
  })

  test("a cut reply is cropped to its notice; its thoughts go, its calls stay; a reminder joins the last user turn", () => {
    const cropped = gemini.mapAssistantText(body, () => "[cut]")
    expect(cropped.contents[2].parts).toEqual([{ text: "[cut]" }, body.contents[2]!.parts[2], body.contents[2]!.parts[3]])
    const reminded = gemini.insertUserText(body, null, "You ran this before.")
    expect(reminded.contents.length).toBe(4)
    expect(reminded.contents[3].parts.at(-1)).toEqual({ text: "You ran this before." })
    const afterModel = gemini.insertUserText({ contents: body.contents.slice(0, 3) }, null, "note")
    expect(afterModel.contents.at(-1)).toEqual({ role: "user", parts: [{ text: "note" }] })
  })

  test("the watch: text, thoughts and whole calls; the finish is the end; a cut ends with a STOP event", () => {
    const watch = gemini.watch(body)
    const see = (payload: object) => watch.see(parseEvent(`data: ${JSON.stringify(payload)}\r\n\r\n`))
    expect(see({ candidates: [{ content: { role: "model", parts: [{ text: "hm", thought: true }] } }], responseId: "r1" })).toEqual({ reasoning: "hm" })
    expect(see({ candidates: [{ content: { role: "model", parts: [{ text: "Hi" }] } }] })).toEqual({ text: "Hi" })
    expect(see({ candidates: [{ content: { role: "model", parts: [{ functionCall: { name: "read_file", args: { path: "a" } } }] }, finishReason: "STOP" }] })).toEqual({ toolCall: true, finishing: true, end: true })
    expect(watch.calls).toEqual([{ id: "gemini-call-0", name: "read_file", args: '{"path":"a"}' }])
    expect(see({ error: { code: 503, message: "overloaded", status: "UNAVAILABLE" } })).toEqual({ error: true })
    const closing = JSON.parse(watch.close("[notice]").slice("data: ".length))
    expect(closing.candidates[0]).toMatchObject({ content: { parts: [{ text: "[notice]" }] }, finishReason: "STOP" })
    expect(closing.responseId).toBe("r1")
  })

  test("the proxy's own answer, streamed and not", () => {
    const streamed = gemini.answer(body, "Stopped.")
    expect(streamed.contentType).toContain("text/event-stream")
    expect(streamed.body).toMatch(/^data: .*"finishReason":"STOP".*\r\n\r\n$/)
    const whole = geminiProtocol("m", false).answer(body, "Stopped.")
    expect(JSON.parse(whole.body).candidates[0].content.parts).toEqual([{ text: "Stopped." }])
  })

  test("paths: streamGenerateContent is guarded only as SSE; the model comes from the path", () => {
    expect(geminiRequestOf("/v1beta/models/gemini-2.5-pro:streamGenerateContent", "alt=sse")).toEqual({ model: "gemini-2.5-pro", stream: true })
    expect(geminiRequestOf("/v1beta/models/gemini-2.5-pro:streamGenerateContent", "")).toBeNull()
    expect(geminiRequestOf("/v1beta/models/gemini%2D2.5:generateContent", "")).toEqual({ model: "gemini-2.5", stream: false })
    expect(geminiRequestOf("/v1beta/models/gemini-2.5-pro:countTokens", "")).toBeNull()
    expect(protocolOf("/v1beta/models/x:streamGenerateContent", "alt=sse")?.name).toBe("gemini")
    expect(protocolOf("/v1/chat/completions")?.name).toBe("chat")
  })

  test("with the upstream key held by the proxy, it goes in Gemini's header, and the client's own is dropped", () => {
    const auth = { token: "t", upstreamKey: "real-key" }
    expect(upstreamHeaders({ "x-goog-api-key": "t" }, [], auth, "gemini", true, "real-key")).toMatchObject({ "x-goog-api-key": "real-key" })
    expect(upstreamHeaders({ "x-goog-api-key": "t" }, [], auth, null, false, "real-key")).toMatchObject({ "x-goog-api-key": "real-key" })
    expect(upstreamHeaders({ authorization: "Bearer t" }, [], auth, null, false, "real-key")).toMatchObject({ authorization: "Bearer real-key" })
  })
})

let rig: Rig | undefined
afterEach(async () => {
  await rig?.close()
  rig = undefined
})

describe("Gemini through the proxy", () => {
  /** A history of the same failing call, ten times. */
  const looping = {
    contents: [
      { role: "user", parts: [{ text: "fix the build" }] },
      ...Array.from({ length: 10 }, () => [
        { role: "model", parts: [{ functionCall: { name: "run_shell_command", args: { command: "npm test" } } }] },
        { role: "user", parts: [{ functionResponse: { name: "run_shell_command", response: { error: "1 failing" } } }] }
      ]).flat()
    ]
  }

  test("an agent step with the same failing call ten times is stopped; a request for JSON on the same history goes upstream unjudged, as it was", async () => {
    rig = await startRig([textStream('{"next_speaker":"user"}')])
    const step = await post(`${rig.proxy.url}/v1beta/models/gemini-x:streamGenerateContent?alt=sse`, looping)
    expect(step.status).toBe(200)
    expect(records(rig.events)[0]?.action).toBe("stop")
    expect(rig.server.requests.length).toBe(0)
    const asked = { ...looping, generationConfig: { responseMimeType: "application/json" } }
    const check = await post(`${rig.proxy.url}/v1beta/models/gemini-x:generateContent`, asked)
    expect(JSON.parse(check.text).candidates[0].content.parts[0].text).toBe('{"next_speaker":"user"}')
    expect(records(rig.events)[1]?.action).toBe("pass")
    expect(rig.server.requests[0]?.body).toEqual(asked)
  }, 60_000)

  test("the reply to a request for JSON is not guarded (200 identical items, as asked for, are not cut); an agent step's is", async () => {
    const loop = repeatLoop('{"file": "src/a.ts", "status": "ok"}, ', 200, { finish: "stop", chunkDelayMs: 0 })
    rig = await startRig([loop, loop])
    const ask = { contents: [{ role: "user", parts: [{ text: "list the files" }] }] }
    const json = await post(`${rig.proxy.url}/v1beta/models/gemini-x:streamGenerateContent?alt=sse`, { ...ask, generationConfig: { responseMimeType: "application/json" } })
    expect(json.text).not.toContain("[loopguard:")
    const text = json.text
      .split("\r\n\r\n")
      .filter((e) => e.startsWith("data:"))
      .map((e) => JSON.parse(parseEvent(`${e}\n\n`).data).candidates?.[0]?.content?.parts?.map((p: { text?: string }) => p.text ?? "").join("") ?? "")
      .join("")
    expect(text.split("src/a.ts").length - 1).toBe(200)
    const step = await post(`${rig.proxy.url}/v1beta/models/gemini-x:streamGenerateContent?alt=sse`, ask)
    expect(step.text).toContain("[loopguard: this reply started repeating itself")
    expect(records(rig.events).map((r) => r.outcome)).toEqual(["completed", "cut"])
  }, 60_000)

  test("streamGenerateContent without alt=sse (a JSON array) and countTokens are passed on as they are", async () => {
    rig = await startRig([textStream("as it came")])
    const unguarded = await post(`${rig.proxy.url}/v1beta/models/gemini-x:streamGenerateContent`, looping)
    expect(unguarded.text).toContain(`"finishReason":"STOP"`)
    expect(rig.server.requests[0]?.body).toEqual(looping)
    const count = await post(`${rig.proxy.url}/v1beta/models/gemini-x:countTokens`, looping)
    expect(count.status).toBe(404)
    // Neither was judged: no request record.
    expect(records(rig.events).length).toBe(0)
  }, 60_000)
})
