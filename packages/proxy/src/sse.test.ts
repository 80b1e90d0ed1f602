import { describe, expect, test } from "bun:test"
import { parseEvent, SseSplitter } from "./sse.js"

const enc = (s: string) => new TextEncoder().encode(s)

describe("SseSplitter", () => {
  test("whole events out, exact text kept, a partial event waits for the rest", () => {
    const s = new SseSplitter()
    expect(s.push(enc("data: a\n\nevent: x\ndata: b"))).toEqual([{ raw: "data: a\n\n", event: undefined, data: "a" }])
    expect(s.buffered).toBeGreaterThan(0)
    expect(s.push(enc("\ndata: c\n\n"))).toEqual([{ raw: "event: x\ndata: b\ndata: c\n\n", event: "x", data: "b\nc" }])
    expect(s.rest()).toBeNull()
  })

  test("CRLF line ends and a multi-byte character split across chunks", () => {
    const s = new SseSplitter()
    const bytes = enc("data: é\r\n\r\n")
    expect(s.push(bytes.subarray(0, 7))).toEqual([])
    const [event] = s.push(bytes.subarray(7))
    expect(event?.data).toBe("é")
    expect(event?.raw).toBe("data: é\r\n\r\n")
  })

  test("what the body ends with, unterminated, is one last event", () => {
    const s = new SseSplitter()
    s.push(enc("data: [DONE]"))
    expect(s.rest()?.data).toBe("[DONE]")
  })

  test("parseEvent: no space after the colon, no data lines", () => {
    expect(parseEvent("data:x\n\n").data).toBe("x")
    expect(parseEvent(": comment\n\n").data).toBe("")
  })
})
