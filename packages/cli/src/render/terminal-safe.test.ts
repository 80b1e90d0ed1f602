import { expect, test } from "bun:test"
import { displayUrl, jsonLine, terminalSafe, terminalSafeField } from "./terminal-safe.js"

test("escape sequences and other controls from the model never reach the terminal", () => {
  expect(terminalSafe("ok\u001b[2J\u001b]0;pwned\u0007 done\r\n\tnext\u009b31m")).toBe("ok[2J]0;pwned done\n\tnext31m")
  expect(terminalSafe("plain text, ünïcode ✓")).toBe("plain text, ünïcode ✓")
  // Bidi overrides and isolates reorder what is shown: "rm -rf ~ #" could read as something else.
  expect(terminalSafe("ls \u202e~ fr- mr\u202c \u2066x\u2069\u200f")).toBe("ls ~ fr- mr x")
  expect(terminalSafe("עברית and العربية stay")).toBe("עברית and العربية stay")
})

test("a URL is shown without credentials or query", () => {
  expect(displayUrl("https://user:s3cret@api.example.test/v1?api_key=abc")).toBe("https://api.example.test/v1")
  expect(displayUrl("http://127.0.0.1:8080/v1/")).toBe("http://127.0.0.1:8080/v1")
  expect(displayUrl("not a url\u001b[31m")).toBe("not a url[31m")
})

test("a JSON line keeps the value but shows no raw bidi control", () => {
  const value = { text: "a\u202eb\u2066c", esc: "\u001b[2J\u009b31m\u007f" }
  const line = jsonLine(value)
  expect(line).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u0000-\u001f\u007f-\u009f]/)
  expect(JSON.parse(line)).toEqual(value)
})

test("a field of a one-line log entry shows its controls, newlines and bidi controls escaped", () => {
  expect(terminalSafeField("gpt\u001b]0;PWNED\u0007\u001b[2J\u202emodel\nFORGED\r\t\u009b\u2028")).toBe("gpt\\x1b]0;PWNED\\x07\\x1b[2J\\u202emodel\\nFORGED\\r\\t\\x9b\\u2028")
  expect(terminalSafeField("claude-3.5 ünïcode עברית")).toBe("claude-3.5 ünïcode עברית")
})
