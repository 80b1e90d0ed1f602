import { describe, expect, test } from "bun:test"
import { detectFormat } from "./detect.js"
import { fixtureText } from "./fixtures.fixture.js"

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
})
