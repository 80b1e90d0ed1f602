import { describe, expect, test } from "bun:test"
import { detectFormat } from "./detect.js"
import { fixtureText } from "./fixtures.fixture.js"
import { readTraceText } from "./read-text.js"

describe("detectFormat", () => {
  test("each fixture is told by its content", () => {
    expect(detectFormat(fixtureText("claude-code.jsonl"))).toBe("claude-code")
    expect(detectFormat(fixtureText("codex.jsonl"))).toBe("codex")
    expect(detectFormat(fixtureText("opencode.json"))).toBe("opencode")
    expect(detectFormat(fixtureText("gemini-session.json"))).toBe("gemini")
    expect(detectFormat(fixtureText("gemini-checkpoint.json"))).toBe("gemini")
    expect(detectFormat(fixtureText("qwen-code.jsonl"))).toBe("qwen-code")
    expect(detectFormat(fixtureText("pi.jsonl"))).toBe("pi")
  })
  test("trace v1, and anything unrecognised, reads as trace v1", () => {
    expect(detectFormat('{"type":"session","id":"s"}\n{"type":"user","text":"go"}')).toBe("trace")
    expect(detectFormat("12:00 log line\n")).toBe("trace")
    expect(detectFormat("")).toBe("trace")
    // A Claude Code file may open with a summary line; the first telling record decides.
    expect(detectFormat('{"foo":1}\n{"type":"summary","summary":"x","leafUuid":"u"}')).toBe("claude-code")
  })

  test("a JSON Lines log whose first line is damaged (a stray line before it, its first record cut short) is still told by its other records", () => {
    expect(detectFormat(`not json at all\n${fixtureText("claude-code.jsonl")}`)).toBe("claude-code")
    const codex = fixtureText("codex.jsonl").split("\n")
    expect(detectFormat([codex[0]!.slice(0, 40), ...codex.slice(1)].join("\n"))).toBe("codex")
    expect(detectFormat(`{"cut": \n${fixtureText("pi.jsonl")}`)).toBe("pi")
    // Nothing telling anywhere: trace v1, whose reader says why.
    expect(detectFormat("12:00 log line\n{\"a\":1}\n")).toBe("trace")
  })

  test("a first record longer than the head (a session started with a pasted prompt) is told by its beginning, and read whole", () => {
    const prompt = "pasted log line\n".repeat(6000)
    const logs = {
      "claude-code": [
        { type: "queue-operation", operation: "enqueue", timestamp: "2026-01-01T00:00:00Z", sessionId: "s1", content: prompt },
        { type: "user", uuid: "u1", sessionId: "s1", message: { role: "user", content: prompt } }
      ],
      "qwen-code": [{ uuid: "u1", parentUuid: null, sessionId: "s1", timestamp: "t", type: "user", message: { role: "user", parts: [{ text: prompt }] } }],
      codex: [{ timestamp: "t", type: "session_meta", payload: { id: "s1", base_instructions: { text: prompt } } }]
    }
    for (const [format, records] of Object.entries(logs)) {
      const text = records.map((r) => JSON.stringify(r)).join("\n") + "\n"
      expect(text.indexOf("\n")).toBeGreaterThan(64 * 1024)
      expect([format, detectFormat(text.slice(0, 64 * 1024))]).toEqual([format, format])
      expect([format, readTraceText(text).format]).toEqual([format, format])
    }
  })
})
