import { describe, expect, test } from "bun:test"
import { priceFor } from "../caps/pricing.js"
import { checkPriceTable } from "./price-table.js"

describe("checkPriceTable", () => {
  test("given prices over the built-in ones, ids lower-cased as priceFor reads them; the built-in ones stay", () => {
    const { value, errors } = checkPriceTable({ "My-Model": { inputPerMTok: 1, outputPerMTok: 2 } }, "prices")
    expect(errors).toEqual([])
    expect(priceFor("vendor/my-model-2026", value)).toEqual({ inputPerMTok: 1, outputPerMTok: 2 })
    expect(priceFor("gpt-4o", value)?.outputPerMTok).toBe(10)
  })

  test("every problem by its path; a bad entry is left out, the good ones kept", () => {
    const { value, errors } = checkPriceTable({ a: { inputPerMTok: "1", outputPerMTok: 1 }, b: 3, c: { inputPerMTok: 1, outputPerMTok: 1, cachedInputPerMTok: 0.5 } }, "prices")
    expect(errors).toEqual(["prices.a.inputPerMTok: Expected number", "prices.b: Expected an object"])
    expect([priceFor("a", value), priceFor("c", value)]).toEqual([null, { inputPerMTok: 1, outputPerMTok: 1, cachedInputPerMTok: 0.5 }])
    expect(checkPriceTable([], "prices").errors).toEqual(["prices: Expected an object"])
  })

  test("a model named __proto__ is an entry, not the table's prototype", () => {
    const { value } = checkPriceTable(JSON.parse(`{ "__proto__": { "inputPerMTok": 1, "outputPerMTok": 1 } }`), "prices")
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype)
    expect(Object.hasOwn(value, "__proto__")).toBe(true)
  })
})
