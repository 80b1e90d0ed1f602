import { expect, test } from "bun:test"
import { redactText, redactValues, secretValues } from "./env-secrets.js"

test("credential-named variables and the API key variable are secrets; short or plain ones are not", () => {
  const env = { OPENAI_API_KEY: "sk-abcdefgh12345", MY_PROVIDER: "p@ss\"word!", GH_TOKEN: "ghp_xxxxxxxx", HOME: "/root/home/dir", SHORT_KEY: "abc" }
  expect(secretValues(env, ["MY_PROVIDER"])).toEqual(["sk-abcdefgh12345", "ghp_xxxxxxxx", "p@ss\"word!"])
})

test("values are replaced raw and JSON-escaped, nothing else changes", () => {
  const text = JSON.stringify({ output: 'key=sk-abcdefgh12345 pw=p@ss"word!', id: "call_8f3kQ2" })
  const out = redactValues(text, ["sk-abcdefgh12345", 'p@ss"word!'])
  expect(JSON.parse(out)).toEqual({ output: "key=[REDACTED] pw=[REDACTED]", id: "call_8f3kQ2" })
})

test("an empty value is no secret; a value inside another goes whole", () => {
  expect(redactText("abc", [""])).toBe("abc")
  expect(redactText("key sk-1234567890-extra", ["sk-1234567890", "sk-1234567890-extra"])).toBe("key [REDACTED]")
})
