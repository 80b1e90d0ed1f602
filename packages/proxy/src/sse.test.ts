import { describe, expect, test } from "bun:test"
import { eventsOf, parseEvent, SseSplitter, type SseEvent } from "./sse.js"

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
  test("parseEvent reads the fields as a line-by-line split does, on every kind of line end", () => {
    // The plain reading (split into lines at "\r\n", "\n" or "\r", as the event-stream format has it) that the index scan must agree with.
    const bySplit = (raw: string) => {
      let event: string | undefined
      let data: string | undefined
      for (const line of raw.split(/\r\n|\r|\n/)) {
        const value = (n: number) => line.slice(line.charCodeAt(n) === 32 ? n + 1 : n)
        if (line.startsWith("data:")) data = data === undefined ? value(5) : `${data}\n${value(5)}`
        else if (line.startsWith("event:")) event = value(6)
      }
      return { raw, event, data: data ?? "" }
    }
    const cases = ["data: a\n\n", "data:\n\n", "data: \n\n", "event: x\r\ndata: y\r\n\r\n", "data: a\r\r\n\n", "data: a\r", "event:\ndata:  two spaces\n\n", ": c\ndata: 1\ndata: 2\n\n", "data: é\n", "data: x\revent: y\n\n", "id: 3\nretry: 1\n\n", ""]
    for (const raw of cases) expect(parseEvent(raw)).toEqual(bySplit(raw))
  })
})

test("eventsOf: every event of a whole text, CRLF line ends too, and an unterminated last one", () => {
  expect(eventsOf("event: a\r\ndata: 1\r\n\r\ndata: 2\n\ndata: 3").map((e) => [e.event, e.data])).toEqual([
    ["a", "1"],
    [undefined, "2"],
    [undefined, "3"]
  ])
  expect(eventsOf("")).toEqual([])
  expect(eventsOf("data: x\n\n\n").map((e) => e.data)).toEqual(["x"])
})

test("a stream whose lines end in a \"\\r\" alone is cut into its events, however the chunks fall; a \"\\r\\n\" split over two chunks is one line break", () => {
  const body = 'data: {"a":1}\r\rdata: {"a":2}\r\revent: x\rdata: {"a":3}\r\r'
  for (let size = 1; size <= body.length; size++) {
    const s = new SseSplitter()
    const got: Array<SseEvent> = []
    for (let i = 0; i < body.length; i += size) got.push(...s.push(enc(body.slice(i, i + size))))
    const rest = s.rest()
    if (rest !== null) got.push(rest)
    expect(got.map((e) => [e.event, e.data])).toEqual([[undefined, '{"a":1}'], [undefined, '{"a":2}'], ["x", '{"a":3}']])
    expect(got.map((e) => e.raw).join("")).toBe(body)
  }
  const crlf = 'data: {"a":1}\r\n\r\ndata: {"a":2}\r\n\r\n'
  const s = new SseSplitter()
  const got = [...s.push(enc(crlf.slice(0, 14))), ...s.push(enc(crlf.slice(14)))]
  expect(got.map((e) => e.raw)).toEqual(['data: {"a":1}\r\n\r\n', 'data: {"a":2}\r\n\r\n'])
})
