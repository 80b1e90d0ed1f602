import { describe, expect, test } from "bun:test"
import { ReplyBuilder } from "./reply-builder.js"
import { PartObserver, type ProgressOptions } from "./part-observer.js"

const observer = (progress: Partial<ProgressOptions> & { clock?: { t: number } }) => {
  const clock = progress.clock ?? { t: 0 }
  return new PartObserver(new ReplyBuilder("a", "u", 0), [], { intervalMs: 100, listening: () => true, now: () => clock.t, ...progress })
}

describe("PartObserver progress", () => {
  test("at most one event per interval, carrying every text since the last one; the end always reports the last count", () => {
    const clock = { t: 0 }
    const o = observer({ clock })
    o.observe({ type: "text-delta", text: "one two " })
    expect(o.takeProgress(false)).toEqual({ tokens: 2, text: "one two " })
    o.observe({ type: "text-delta", text: "three " })
    clock.t = 50
    expect(o.takeProgress(false)).toBeNull()
    o.observe({ type: "reasoning-delta", text: "four five" })
    clock.t = 100
    expect(o.takeProgress(false)).toEqual({ tokens: 5, text: "three four five" })
    o.observe({ type: "text-delta", text: " six" })
    clock.t = 120
    expect(o.takeProgress(false)).toBeNull()
    expect(o.takeProgress(true)).toEqual({ tokens: 6, text: " six" })
    expect(o.takeProgress(true)).toBeNull()
  })

  test("nobody listening: no event is built, and the tokens are still counted", () => {
    let listening = false
    const o = observer({ listening: () => listening })
    o.observe({ type: "text-delta", text: "a b c" })
    expect(o.takeProgress(true)).toBeNull()
    listening = true
    o.observe({ type: "text-delta", text: " d" })
    expect(o.takeProgress(true)).toEqual({ tokens: 4, text: " d" })
  })

  test("an error part stops the stream and says which phase it came in", () => {
    const o = observer({})
    expect(o.observe({ type: "error", error: { message: "boom" } })).toBe("stop")
    expect(o.streamError).toMatchObject({ message: "boom", phase: "request" })
    const p = observer({})
    p.observe({ type: "text-delta", text: "x" })
    p.observe({ type: "error", error: { message: "boom" } })
    expect(p.streamError).toMatchObject({ phase: "stream" })
    expect(p.observe({ type: "tool-call", id: "c", name: "t", input: {} })).toBe("tool")
    expect(p.toolCalled).toBe(true)
  })
})
