import { describe, expect, test } from "bun:test"
import fc from "fast-check"
import { limitEventStream, ProtocolError } from "./response-limits.js"

/** The rule in its plainest form, one byte at a time: what the indexOf scan must agree with. */
const referenceVerdict = (chunks: ReadonlyArray<Uint8Array>, maxEventBytes: number): "ok" | "too-big" => {
  let eventBytes = 0
  let lineEmpty = true
  for (const chunk of chunks) {
    for (const b of chunk) {
      if (b === 13) continue
      if (b === 10) {
        if (lineEmpty) eventBytes = 0
        lineEmpty = true
        continue
      }
      lineEmpty = false
      if (++eventBytes > maxEventBytes) return "too-big"
    }
  }
  return "ok"
}

const verdictOf = async (chunks: ReadonlyArray<Uint8Array>, maxEventBytes: number): Promise<"ok" | "too-big"> => {
  const source = new ReadableStream<Uint8Array>({
    start: (c) => {
      for (const chunk of chunks) c.enqueue(chunk)
      c.close()
    }
  })
  const reader = source.pipeThrough(limitEventStream({ maxResponseBytes: 1 << 30, maxEventBytes }, true)).getReader()
  try {
    while (!(await reader.read()).done) {}
    return "ok"
  } catch (e) {
    if (e instanceof ProtocolError) return "too-big"
    throw e
  }
}

// Bytes drawn mostly from the ones the rule looks at, so lines, blank lines and CRs are common.
const sseByte = fc.oneof(fc.constant(10), fc.constant(13), fc.constant(97), fc.integer({ min: 0, max: 255 }))

describe("limitEventStream", () => {
  test("agrees with the byte-by-byte rule for any bytes cut anywhere", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(sseByte, { maxLength: 40 }), { maxLength: 8 }), fc.integer({ min: 1, max: 12 }), async (chunks, max) => {
        const bytes = chunks.map((c) => Uint8Array.from(c))
        expect(await verdictOf(bytes, max)).toBe(referenceVerdict(bytes, max))
      }),
      { numRuns: 300 }
    )
  })

  test("an event split over chunks counts as one; a blank line split over chunks (CR LF | CR LF) ends it", async () => {
    const enc = (s: string) => new TextEncoder().encode(s)
    expect(await verdictOf([enc("data: abc"), enc("def\r\n")], 8)).toBe("too-big")
    expect(await verdictOf([enc("data: ab\r\n\r"), enc("\ndata: cd\r\n\r\n")], 8)).toBe("ok")
    // CRs alone do not count, and a line of CRs is blank.
    expect(await verdictOf([enc("\r\r\r\r\r\r\r\r\r\r\r\r\n")], 2)).toBe("ok")
  })
})
