import { describe, expect, test } from "bun:test"
import { checkPatch } from "./check-patch.js"

const DEFAULTS = { enabled: true, repeats: 3, stopAt: 8 as number | null, budget: null as number | null, fallback: null as string | null, names: ["bash"], nested: { copies: 4, ratio: 0.5 } }

describe("checkPatch", () => {
  test("no patch: the defaults; a patch: laid over them field by field, nested sections too", () => {
    expect(checkPatch(DEFAULTS, undefined, "s")).toEqual({ value: DEFAULTS, errors: [] })
    const r = checkPatch(DEFAULTS, { repeats: 5, nested: { copies: 6 }, names: ["sh"], fallback: "small-model" }, "s")
    expect(r.errors).toEqual([])
    expect(r.value).toEqual({ ...DEFAULTS, repeats: 5, names: ["sh"], fallback: "small-model", nested: { copies: 6, ratio: 0.5 } })
  })

  test("every problem is named by its path; the kind of a field comes from its default", () => {
    const r = checkPatch(DEFAULTS, { enabled: "yes", repeats: -1, stopAt: null, extra: 1, names: [1], nested: { ratio: 2, copies: 2.5 } }, "s", {
      stopAt: { int: true, atLeast: 1, nullable: true },
      nested: { ratio: { atLeast: 0, atMost: 1 }, copies: { int: true, atLeast: 2 } }
    })
    expect(r.errors).toEqual([
      "s.enabled: Expected boolean",
      "s.repeats: Expected a value greater than or equal to 0",
      "s.extra: Expected no excess property",
      "s.names: Expected an array of strings",
      "s.nested.ratio: Expected a value between 0 and 1",
      "s.nested.copies: Expected an integer"
    ])
    expect(r.value.stopAt).toBeNull()
    expect(checkPatch(DEFAULTS, { repeats: null }, "s").errors).toEqual(["s.repeats: Expected number"])
    expect(checkPatch(DEFAULTS, { budget: 10 }, "s").value.budget).toBe(10)
    expect(checkPatch(DEFAULTS, 3, "s").errors).toEqual(["s: Expected an object"])
    expect(checkPatch(DEFAULTS, { repeats: Number.NaN }, "s").errors).toEqual(["s.repeats: Expected a finite number"])
  })
})
