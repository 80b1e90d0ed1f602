import { describe, expect, test } from "bun:test"
import { DEFAULT_CONFIG } from "@loopguard/effect/config"
import { LoopguardMiddlewareOptionsError, resolveMiddlewareOptions } from "./options.js"

const errorsOf = (f: () => unknown): ReadonlyArray<string> => {
  try {
    f()
  } catch (e) {
    if (e instanceof LoopguardMiddlewareOptionsError) return e.errors
    throw e
  }
  return []
}

describe("loopguardMiddleware options", () => {
  test("defaults are the repetition rule's (docs/repetition.md) and the config's stream section", () => {
    const o = resolveMiddlewareOptions()
    expect(o.repeat).toEqual({ enabled: true, window: 500, threshold: 20, minBlock: 4, minDistinct: 3, long: DEFAULT_CONFIG.repeat.long })
    expect(o.chunkTimeoutMs).toBe(480_000)
  })

  test("fields merge one by one", () => {
    const o = resolveMiddlewareOptions({ repeat: { threshold: 5 }, stream: { chunkTimeoutMs: 50 } })
    expect([o.repeat.threshold, o.repeat.window, o.chunkTimeoutMs]).toEqual([5, 500, 50])
  })

  test("a bad field is named", () => {
    const schema = errorsOf(() => resolveMiddlewareOptions({ stream: { chunkTimeoutMs: -1 }, repeat: { window: "x" as never } }))
    expect(schema).toEqual(["repeat.window: Expected number", "stream.chunkTimeoutMs: Expected a value greater than 0"])
    expect(errorsOf(() => resolveMiddlewareOptions({ repeat: { windw: 3 } as never }))).toEqual(["repeat.windw: Expected no excess property"])
    const relation = errorsOf(() => resolveMiddlewareOptions({ repeat: { window: 10, threshold: 20 } }))
    expect(relation).toEqual(["repeat.window: window must be >= minBlock * threshold = 80 (got 10)"])
    expect(errorsOf(() => resolveMiddlewareOptions({ onTrip: 3 as never }))).toEqual(["onTrip: must be a function"])
    expect(errorsOf(() => resolveMiddlewareOptions({ stream: 5 as never })).join(" ")).toContain("stream")
    expect(errorsOf(() => resolveMiddlewareOptions(null as never))).toEqual(["options must be an object"])
  })

  test("a disabled guard skips the relation checks", () => {
    expect(resolveMiddlewareOptions({ repeat: { enabled: false, window: 10 } }).repeat.enabled).toBe(false)
  })
})

describe("loopguardMiddleware options without Effect", () => {
  test("a loaded config's whole repeat and stream sections pass as they are", () => {
    const o = resolveMiddlewareOptions({ repeat: DEFAULT_CONFIG.repeat, stream: { ...DEFAULT_CONFIG.stream, chunkTimeoutMs: 1_000 } })
    expect([o.chunkTimeoutMs, o.repeat.window]).toEqual([1_000, 500])
  })

  test("bounds match the config schema's", () => {
    expect(errorsOf(() => resolveMiddlewareOptions({ repeat: { threshold: 1.5, long: { maxBlockChars: 200_000 } } }))).toEqual([
      "repeat.threshold: Expected an integer",
      "repeat.long.maxBlockChars: Expected a value between 1 and 100000"
    ])
    expect(errorsOf(() => resolveMiddlewareOptions({ stream: { chunkTimeoutMs: 2 ** 31 } }))).toEqual(["stream.chunkTimeoutMs: Expected a value less than or equal to 2147483647"])
    expect(errorsOf(() => resolveMiddlewareOptions({ sessionId: "" }))).toEqual(["sessionId: must be a non-empty string"])
    expect(errorsOf(() => resolveMiddlewareOptions({ repeat: { long: { recurChars: 0, whitespaceChars: 1 } } })).length).toBe(2)
    expect(resolveMiddlewareOptions({ repeat: { long: { whitespaceChars: 300 } } }).repeat.long.whitespaceChars).toBe(300)
  })
})

describe("middleware options a user gets wrong", () => {
  test("an option the middleware does not read is refused, one of loopguardAgent's named as such", () => {
    const errors = errorsOf(() => resolveMiddlewareOptions({ foo: 1, loop: { tokenBudget: 5 } } as never))
    expect(errors).toContain("foo: Expected no excess property")
    expect(errors.find((e) => e.startsWith("loop:"))).toContain("a loopguardAgent option")
  })
})

test("an options error made by another copy of the class (the bundled /agent entry holds one) is instanceof this one, and back", async () => {
  const copy: typeof import("./options.js") = await import(`./options.ts?copy=${Date.now()}`)
  expect(copy.LoopguardMiddlewareOptionsError).not.toBe(LoopguardMiddlewareOptionsError)
  expect(new copy.LoopguardMiddlewareOptionsError(["x"]) instanceof LoopguardMiddlewareOptionsError).toBe(true)
  expect(new LoopguardMiddlewareOptionsError(["x"]) instanceof copy.LoopguardMiddlewareOptionsError).toBe(true)
  expect(new Error("x") instanceof LoopguardMiddlewareOptionsError).toBe(false)
})
