import { describe, expect, test } from "bun:test"
import fc from "fast-check"
import type { NormalizedError } from "../model/stream.js"
import { MAX_TEXT_HINT_MS, parseRetryText, serverHintMs } from "./hint.js"

const err = (e: Partial<NormalizedError>): NormalizedError => ({ message: "x", ...e })

describe("serverHintMs: headers", () => {
  test("retry-after-ms in milliseconds", () => {
    expect(serverHintMs(err({ headers: { "retry-after-ms": "1500" } }))).toBe(1500)
  })

  test("retry-after-ms wins over retry-after and text", () => {
    const e = err({ message: "try again in 9s", headers: { "retry-after-ms": "250", "retry-after": "30" } })
    expect(serverHintMs(e)).toBe(250)
  })

  test("retry-after as (decimal) seconds", () => {
    expect(serverHintMs(err({ headers: { "retry-after": "7" } }))).toBe(7000)
    expect(serverHintMs(err({ headers: { "retry-after": " 1.5 " } }))).toBe(1500)
  })

  test("retry-after as an HTTP date is relative to now; a past date is 0", () => {
    const at = "Wed, 21 Oct 2015 07:28:00 GMT"
    expect(serverHintMs(err({ headers: { "retry-after": at } }), Date.parse(at) - 42_000)).toBe(42_000)
    expect(serverHintMs(err({ headers: { "retry-after": at } }), Date.parse(at) + 5_000)).toBe(0)
  })

  test("junk headers are ignored and the text is consulted", () => {
    expect(serverHintMs(err({ headers: { "retry-after": "soon", "retry-after-ms": "-5" } }))).toBeUndefined()
    expect(serverHintMs(err({ message: "try again in 3s", headers: { "retry-after": "soon" } }))).toBe(3000)
  })

  test("no hint at all", () => {
    expect(serverHintMs(err({ status: 500 }))).toBeUndefined()
  })
})

describe("serverHintMs: text", () => {
  test.each([
    ["Please try again in 20s.", 20_000],
    ["Rate limit reached. Please try again in 6.5s. Visit ...", 6_500],
    ["retry after 1.5 seconds", 1_500],
    ["try again in 2m", 120_000],
    ["Please try again in 1m30.5s", 90_500],
    ["try again in 250ms", 250],
    ["Retrying in 1 minute 30 seconds", 90_000],
    ["Please wait in 4 sec, then continue", 4_000]
  ])("%s", (text, ms) => {
    expect(parseRetryText(text)).toBe(ms)
    expect(serverHintMs(err({ message: text }))).toBe(ms)
  })

  test("a text hint is capped at 5 minutes", () => {
    expect(serverHintMs(err({ message: "try again in 10 minutes" }))).toBe(MAX_TEXT_HINT_MS)
    expect(serverHintMs(err({ message: "try again in 2h" }))).toBe(5 * 60_000)
  })

  test("the response body is read too", () => {
    expect(serverHintMs(err({ message: "Too Many Requests", body: '{"error":{"message":"Please try again in 12s"}}' }))).toBe(12_000)
  })

  test.each([
    "try again in 30",
    "try again in a few seconds",
    "try again in 2 or 3 seconds",
    "try again in 30s-ish",
    "try again in 1s 2m",
    "try again in 5 business days",
    "try again later",
    "trained in 2m steps",
    "try again in 1.5.3s"
  ])("ambiguous text is ignored: %s", (text) => {
    expect(parseRetryText(text)).toBeUndefined()
  })

  test("never throws; result is undefined or a finite non-negative number", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), (a, b, c) => {
        const r = parseRetryText(`${a}try again in ${b}${c}`)
        return r === undefined || (Number.isFinite(r) && r >= 0)
      })
    )
  })
})
