import { describe, expect, test } from "bun:test"
import { reply } from "./fixtures.js"
import { reasoningHash, replyKey } from "./reply-key.js"

describe("replyKey", () => {
  test("reasoning → reason: + first 16 hex of SHA-256 of the folded text (FIPS 180-2 vector for 'abc')", () => {
    // sha256("abc") = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
    expect(replyKey(reply({ id: "a", reasoning: "  ABC \n" }))).toBe("reason:ba7816bf8f01cfea")
    expect(reasoningHash("abc")).toHaveLength(16)
  })

  test("non-ASCII reasoning is folded and hashed", () => {
    expect(reasoningHash("É")).toBe(reasoningHash("é"))
    expect(reasoningHash("é")).not.toBe(reasoningHash("e"))
  })

  test("reasoning wins over tools: drifted tool arguments keep the same key", () => {
    const a = reply({ id: "a", reasoning: "Check the config\nagain", tools: [["read", { path: "a.ts" }]] })
    const b = reply({ id: "b", reasoning: "check the   config again", tools: [["read", { path: "a.ts", limit: 10 }]] })
    expect(replyKey(a)).toBe(replyKey(b))
    expect(replyKey(a).startsWith("reason:")).toBe(true)
  })

  test("different reasoning → different key", () => {
    expect(replyKey(reply({ id: "a", reasoning: "one" }))).not.toBe(replyKey(reply({ id: "b", reasoning: "two" })))
  })

  test("no reasoning → tool: + exact signature; whitespace-only reasoning counts as none", () => {
    const r = reply({ id: "a", reasoning: "  \n ", tools: [["bash", { cwd: "/", command: "ls" }]] })
    expect(replyKey(r)).toBe('tool:bash({"command":"ls","cwd":"/"})')
  })

  test("text only → empty key", () => {
    expect(replyKey(reply({ id: "a", text: "Done." }))).toBe("")
    expect(replyKey(reply({ id: "b" }))).toBe("")
  })
})
