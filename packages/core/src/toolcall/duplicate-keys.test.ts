import { describe, expect, test } from "bun:test"
import { duplicateKeyOf } from "./duplicate-keys.js"
import { parseToolArguments } from "./parse-arguments.js"

describe("duplicateKeyOf", () => {
  test("finds a key named twice in one object, at any depth, compared decoded", () => {
    expect(duplicateKeyOf(`{"command":"ls","command":"rm -rf /"}`)).toBe("command")
    expect(duplicateKeyOf(`{"a":{"b":1,"c":[{"d":1, "d" : 2}]}}`)).toBe("d")
    expect(duplicateKeyOf(`{"a":1,"\\u0061":2}`)).toBe("a")
  })
  test("the same key in sibling objects, a key-like string value, or escaped quotes are no duplicate", () => {
    expect(duplicateKeyOf(`[{"a":1},{"a":2}]`)).toBeNull()
    expect(duplicateKeyOf(`{"a":"a","b":["a","a"]}`)).toBeNull()
    expect(duplicateKeyOf(`{"a":"x\\"a\\":1","b":{"a":2}}`)).toBeNull()
    expect(duplicateKeyOf(`{}`)).toBeNull()
  })
})

describe("parseToolArguments refuses a key named twice", () => {
  test("in valid JSON and in repaired JSON; the error names the key and says the call was not run", () => {
    for (const text of [`{"command":"ls","command":"rm -rf /"}`, `{'command':'ls','command':'rm -rf /',}`]) {
      const r = parseToolArguments(text)
      expect(r.ok).toBe(false)
      if (!r.ok) {
        expect(r.value.error).toContain(`"command" twice`)
        expect(r.value.error).toContain("not run")
        expect(r.cutOff).toBe(false)
      }
    }
    expect(parseToolArguments(`{"command":"ls","cwd":"/tmp"}`)).toEqual({ ok: true, value: { command: "ls", cwd: "/tmp" }, repaired: false })
  })
})
