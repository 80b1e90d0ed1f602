import { afterEach, describe, expect, test } from "bun:test"
import { textStream, toolCallStream } from "./builders.js"
import { geminiFrames, geminiJson, geminiPath } from "./gemini-frames.js"
import { startScriptedServer } from "./server.js"
import type { ScriptedServer } from "./types.js"

const who = { id: "gemini-1", created: 0, model: "scripted-model" }

let server: ScriptedServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

const dataOf = (frame: string) => JSON.parse(frame.slice("data: ".length))

describe("the scripted server's Gemini dialect", () => {
  test("one event per text, thought or call, each closed by CRLF CRLF; the finish and usage in a last event", () => {
    const frames = geminiFrames({ type: "stream", chunks: [{ reasoning: "hmm" }, { text: "Hi" }, { toolCall: { id: "c1", name: "run_shell_command", arguments: '{"command":"ls"}', pieces: 3 } }] }, who)
    expect(frames.head).toEqual([])
    expect(frames.content.length).toBe(3)
    for (const f of [...frames.content, ...frames.trailer]) expect(f.endsWith("}\r\n\r\n")).toBe(true)
    expect(dataOf(frames.content[0]!).candidates[0].content.parts).toEqual([{ text: "hmm", thought: true }])
    expect(dataOf(frames.content[2]!).candidates[0].content.parts).toEqual([{ functionCall: { name: "run_shell_command", args: { command: "ls" } } }])
    const last = dataOf(frames.trailer[0]!)
    expect(last.candidates[0].finishReason).toBe("STOP")
    expect(last.usageMetadata.totalTokenCount).toBeGreaterThan(0)
  })

  test("the JSON reply joins text pieces into one part and keeps calls whole", () => {
    const json = geminiJson(toolCallStream("read_file", { path: "a.ts" }, { text: "Reading it." }), who) as any
    const parts = json.candidates[0].content.parts
    expect(parts[0]).toEqual({ text: "Reading it." })
    expect(parts.at(-1)).toEqual({ functionCall: { name: "read_file", args: { path: "a.ts" } } })
    expect(geminiJson({ type: "stream", chunks: [{ text: "cut" }], finish: "length" }, who)).toMatchObject({ candidates: [{ finishReason: "MAX_TOKENS" }] })
  })

  test("paths: the model sits in the path, streaming is named by the method", () => {
    expect(geminiPath("/v1beta/models/gemini-2.5-pro:streamGenerateContent")).toEqual({ stream: true })
    expect(geminiPath("/v1beta/models/gemini-2.5-pro:generateContent")).toEqual({ stream: false })
    expect(geminiPath("/v1beta/models/gemini-2.5-pro:countTokens")).toBeNull()
    expect(geminiPath("/v1/chat/completions")).toBeNull()
  })

  test("over HTTP: streamGenerateContent streams, generateContent answers JSON, each request recorded", async () => {
    server = await startScriptedServer([textStream("Hello from Gemini."), textStream("Whole.")])
    const body = { contents: [{ role: "user", parts: [{ text: "hi" }] }] }
    const streamed = await fetch(`${server.url}/v1beta/models/scripted-model:streamGenerateContent?alt=sse`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
    expect(streamed.headers.get("content-type")).toContain("text/event-stream")
    const text = await streamed.text()
    const said = text.split("\r\n\r\n").filter((e) => e.startsWith("data: ")).map((e) => dataOf(e).candidates[0].content.parts.map((p: any) => p.text ?? "").join("")).join("")
    expect(said).toBe("Hello from Gemini.")
    const whole = await fetch(`${server.url}/v1beta/models/scripted-model:generateContent`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
    expect(((await whole.json()) as any).candidates[0].content.parts).toEqual([{ text: "Whole." }])
    expect(server.requests.length).toBe(2)
    expect(server.requests[0]!.body).toEqual(body)
  })
})
