import { expect, test } from "bun:test"
import { parseChatLine, SLASH_HELP } from "./slash.js"

test("a line is a prompt, a command, nothing, or a clear complaint", () => {
  expect(parseChatLine("  fix the test ")).toEqual({ type: "prompt", text: "fix the test" })
  expect(parseChatLine("   ")).toEqual({ type: "empty" })
  expect(parseChatLine("/report")).toEqual({ type: "command", command: { name: "report" } })
  expect(parseChatLine("/QUIT")).toEqual({ type: "command", command: { name: "quit" } })
  expect(parseChatLine("/export out/my trace.jsonl")).toEqual({ type: "command", command: { name: "export", file: "out/my trace.jsonl" } })
  expect(parseChatLine("//etc/hosts is odd")).toEqual({ type: "prompt", text: "/etc/hosts is odd" })
})

test("wrong commands say what is wrong", () => {
  const unknown = parseChatLine("/frobnicate now")
  expect(unknown.type).toBe("invalid")
  expect(unknown.type === "invalid" && unknown.message).toContain("unknown command /frobnicate")
  const bare = parseChatLine("/export")
  expect(bare.type === "invalid" && bare.message).toContain("/export FILE")
  const extra = parseChatLine("/retry please")
  expect(extra.type === "invalid" && extra.message).toContain('/retry takes no argument (got "please")')
})

test("every command /help lists is one the parser knows", () => {
  for (const [usage] of SLASH_HELP) {
    const line = usage.replace("FILE", "x.jsonl")
    expect(parseChatLine(line).type).toBe("command")
  }
})
