import { expect, test } from "bun:test"
import { displayUrl, terminalSafe } from "./terminal-safe.js"

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
