import { describe, expect, test } from "bun:test"
import { ReplyRouting } from "./reply-routing.js"

const opening = { raw: "O;" }
const text = (t: string) => ({ raw: `T${t};`, seen: { text: t } })
const call = (n: number) => ({ raw: `C${n};`, seen: { toolCall: true } })
const finishing = { raw: "F;", seen: { finishing: true } }
const end = { raw: "E;", seen: { end: true } }

describe("ReplyRouting", () => {
  test("opening events wait for the first content and go out just before it; later events go out at once", () => {
    const r = new ReplyRouting(false)
    r.route(opening.raw, {})
    expect(r.takeOut()).toBe("")
    expect(r.written).toBe(false)
    r.route(text("a").raw, text("a").seen)
    expect(r.takeOut()).toBe("O;Ta;")
    r.route("X;", {})
    expect(r.takeOut()).toBe("X;")
    expect(r.written).toBe(true)
  })

  test("a reply with no content still gets its opening, before its end event", () => {
    const r = new ReplyRouting(false)
    r.route(opening.raw, {})
    r.route(end.raw, end.seen)
    expect(r.takeOut()).toBe("O;E;")
    expect(r.takeOpening()).toBe("")
  })

  test("from the first tool call on, everything is held, with the opening before it, until taken", () => {
    const r = new ReplyRouting(false)
    r.route(opening.raw, {})
    r.route(call(1).raw, call(1).seen)
    r.route(text("late").raw, text("late").seen)
    r.route(end.raw, end.seen)
    expect(r.takeOut()).toBe("")
    expect(r.keepingBack).toBe(true)
    expect(r.openingOfHeld).toBe("O;")
    expect(r.written).toBe(false)
    expect(r.takeHeld()).toBe("O;C1;Tlate;E;")
    expect(r.keepingBack).toBe(false)
    expect(r.written).toBe(true)
  })

  test("with text calls on, the finish events are the tail; without, they go out", () => {
    const kept = new ReplyRouting(true)
    kept.route(text("a").raw, text("a").seen)
    kept.route(finishing.raw, finishing.seen)
    kept.route(end.raw, end.seen)
    expect(kept.takeOut()).toBe("Ta;")
    expect(kept.takeTail()).toBe("F;E;")
    expect(kept.takeTail()).toBeNull()
    const passed = new ReplyRouting(false)
    passed.route(text("a").raw, text("a").seen)
    passed.route(finishing.raw, finishing.seen)
    expect(passed.takeOut()).toBe("Ta;F;")
    expect(passed.keepingBack).toBe(false)
  })

  test("a cut passes whole held calls on; cut-off ones are dropped, their opening kept when nothing was written", () => {
    const whole = new ReplyRouting(false)
    whole.route(opening.raw, {})
    whole.route(call(1).raw, call(1).seen)
    expect(whole.beforeCut(true)).toBe("O;C1;")
    const broken = new ReplyRouting(false)
    broken.route(opening.raw, {})
    broken.route(call(1).raw, call(1).seen)
    expect(broken.beforeCut(false)).toBe("O;")
    expect(broken.callsHeld).toBe(false)
    const afterText = new ReplyRouting(false)
    afterText.route(text("a").raw, text("a").seen)
    afterText.takeOut()
    afterText.route(call(1).raw, call(1).seen)
    expect(afterText.beforeCut(false)).toBe("")
  })

  test("a cut in the middle of a chunk: the chunk's events so far go first", () => {
    const r = new ReplyRouting(false)
    r.route(text("a").raw, text("a").seen)
    r.route(text("b").raw, text("b").seen)
    expect(r.beforeCut(true)).toBe("Ta;Tb;")
    expect(r.takeOut()).toBe("")
  })
})
