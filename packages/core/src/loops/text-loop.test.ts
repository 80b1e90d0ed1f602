import { describe, expect, test } from "bun:test"
import fc from "fast-check"
import { reply } from "./fixtures.js"
import { dropLeadingPrefix, firstChars, foldText } from "./normalize.js"
import { DEFAULT_TEXT_LOOP, PARAGRAPH_CHARS, TextLoopDetector, textLoopKey, type TextLoopState } from "./text-loop.js"

const feed = (texts: ReadonlyArray<string>, state: TextLoopState = TextLoopDetector.init()) => {
  const triggers: Array<string | null> = []
  for (const [i, text] of texts.entries()) {
    const r = TextLoopDetector.consume(state, reply({ id: `a${i}`, text }), { cropped: false })
    state = r.state
    triggers.push(r.trigger?.level ?? null)
  }
  return { state, triggers }
}

const keyWithCall = (name: string, input: unknown) => textLoopKey(reply({ id: "t", text: "I need to find the race.", tools: [[name, input]] }))

describe("textLoopKey", () => {
  test("a megabyte reply is keyed from a folded head, with the key of the whole fold", () => {
    const text = `  Let me   CHECK the ${"Σα ".repeat(150)}file\n\n${"and so on ".repeat(100_000)}`
    const key = textLoopKey(reply({ id: "a", text }))
    expect(key).toBe(`${firstChars(dropLeadingPrefix(foldText(text), DEFAULT_TEXT_LOOP.prefixes), DEFAULT_TEXT_LOOP.keyChars)}\n`)
  })

  test("case and whitespace variants share a key", () => {
    const a = textLoopKey(reply({ id: "a", text: "  Checking the\n\nfile   NOW " }))
    const b = textLoopKey(reply({ id: "b", text: "checking the file now" }))
    expect(a).not.toBeNull()
    expect(a).toBe(b)
  })

  test("one leading filler phrase is dropped, only at the start, only once", () => {
    const plain = textLoopKey(reply({ id: "a", text: "read the config" }))
    expect(textLoopKey(reply({ id: "b", text: "Let me read the config" }))).toBe(plain)
    expect(textLoopKey(reply({ id: "c", text: "I'll read the config" }))).toBe(plain)
    expect(textLoopKey(reply({ id: "d", text: "i will   read the config" }))).toBe(plain)
    expect(textLoopKey(reply({ id: "e", text: "LET'S read the config" }))).toBe(plain)
    expect(textLoopKey(reply({ id: "f", text: "Let me let me read the config" }))).not.toBe(plain)
    expect(textLoopKey(reply({ id: "g", text: "now let me read the config" }))).not.toBe(plain)
    // "letme" is not the phrase "let me ".
    expect(textLoopKey(reply({ id: "h", text: "letme read the config" }))).not.toBe(plain)
  })

  test("only the first keyChars characters of text count", () => {
    const head = "x".repeat(DEFAULT_TEXT_LOOP.keyChars)
    expect(textLoopKey(reply({ id: "a", text: head + " tail one" }))).toBe(textLoopKey(reply({ id: "b", text: head + " tail two" })))
    const early = "y".repeat(DEFAULT_TEXT_LOOP.keyChars - 1)
    expect(textLoopKey(reply({ id: "c", text: early + "A" }))).not.toBe(textLoopKey(reply({ id: "d", text: early + "B" })))
  })

  test("tool calls are part of the key, with arguments compared as sorted-key JSON", () => {
    const k = (input: unknown) => textLoopKey(reply({ id: "a", text: "run it", tools: [["bash", input]] }))
    expect(k({ command: "ls", cwd: "/" })).toBe(k({ cwd: "/", command: "ls" }))
    expect(k({ command: "ls" })).not.toBe(k({ command: "pwd" }))
    expect(k({ command: "ls" })).not.toBe(textLoopKey(reply({ id: "b", text: "run it" })))
  })

  test("a think call's thought is reasoning: left out of the key, unlike any other call's arguments", () => {
    const k = keyWithCall
    expect(k("think", { thought: "where is the race? (iteration 1)" })).toBe(k("think", { thought: "where is the race? (iteration 2)" }))
    expect(k("sequentialthinking", { thought: "a", thoughtNumber: 1 })).toBe(k("sequentialthinking", { thought: "b", thoughtNumber: 2 }))
    expect(k("think", { thought: "a" })).not.toBe(k("todowrite", { todos: ["a"] }))
    expect(k("todowrite", { todos: ["a"] })).not.toBe(k("todowrite", { todos: ["b"] }))
  })

  test("no key for tool-only or synthetic-only steps; reasoning is ignored", () => {
    expect(textLoopKey(reply({ id: "a", tools: [["bash", { command: "ls" }]] }))).toBeNull()
    expect(textLoopKey(reply({ id: "b", text: "   \n " }))).toBeNull()
    expect(textLoopKey(reply({ id: "c", synthetic: "Try-best loop detected" }))).toBeNull()
    expect(textLoopKey(reply({ id: "d", text: "same", reasoning: "one" }))).toBe(
      textLoopKey(reply({ id: "e", text: "same", reasoning: "two" }))
    )
  })
})

describe("TextLoopDetector", () => {
  test("2 identical steps do not trigger, the 3rd does (mild)", () => {
    expect(feed(["same", "same"]).triggers).toEqual([null, null])
    expect(feed(["same", "same", "same"]).triggers).toEqual([null, null, "mild"])
  })

  test("whitespace and case variants count as the same step", () => {
    expect(feed(["Same thing", "same   THING", "  same thing\n"]).triggers[2]).toBe("mild")
  })

  test("buffer is cleared after a trigger: mild, then strong after 3 fresh repeats, then terminate", () => {
    const r = feed(Array(9).fill("again"))
    expect(r.triggers).toEqual([null, null, "mild", null, null, "strong", null, null, "terminate"])
    expect(r.state.triggers).toBe(3)
  })

  test("the state after a trigger has an empty buffer", () => {
    const r = feed(["a", "a", "a"])
    expect(r.state.buffer).toEqual([])
    expect(r.state.triggers).toBe(1)
  })

  test("a different step in between resets the run", () => {
    expect(feed(["a", "a", "b", "a", "a"]).triggers).toEqual([null, null, null, null, null])
  })

  test("tool-only steps are not recorded and do not break a run", () => {
    let state = TextLoopDetector.init()
    const steps = [
      reply({ id: "1", text: "same" }),
      reply({ id: "2", tools: [["bash", { command: "ls" }]] }),
      reply({ id: "3", text: "same" }),
      reply({ id: "4", text: "same" })
    ]
    const levels = steps.map((s) => {
      const r = TextLoopDetector.consume(state, s, { cropped: false })
      state = r.state
      return [r.key === null, r.trigger?.level ?? null]
    })
    expect(levels).toEqual([
      [false, null],
      [true, null],
      [false, null],
      [false, "mild"]
    ])
  })

  test("a step in a cropped turn records nothing", () => {
    const two = feed(["same", "same"]).state
    const skipped = TextLoopDetector.consume(two, reply({ id: "x", text: "same" }), { cropped: true })
    expect(skipped.trigger).toBeNull()
    expect(skipped.state).toEqual(two)
    const next = TextLoopDetector.consume(skipped.state, reply({ id: "y", text: "same" }), { cropped: false })
    expect(next.trigger?.level).toBe("mild")
  })

  test("the buffer keeps at most bufferSize keys", () => {
    const r = feed(["a", "b", "c", "d", "e", "f", "g"])
    expect(r.state.buffer.length).toBe(DEFAULT_TEXT_LOOP.bufferSize)
    expect(r.state.buffer[0]!.startsWith("c")).toBe(true)
  })

  test("options: repeats 2 triggers on the 2nd identical step", () => {
    const opts = { ...DEFAULT_TEXT_LOOP, repeats: 2 }
    const s1 = TextLoopDetector.consume(TextLoopDetector.init(), reply({ id: "a", text: "x" }), { cropped: false }, opts)
    const s2 = TextLoopDetector.consume(s1.state, reply({ id: "b", text: "x" }), { cropped: false }, opts)
    expect([s1.trigger, s2.trigger?.level]).toEqual([null, "mild"])
  })

  test("a buffer configured shorter than repeats still holds a full run", () => {
    const opts = { ...DEFAULT_TEXT_LOOP, bufferSize: 1 }
    let state = TextLoopDetector.init()
    const levels = ["x", "x", "x"].map((text, i) => {
      const r = TextLoopDetector.consume(state, reply({ id: `b${i}`, text }), { cropped: false }, opts)
      state = r.state
      return r.trigger?.level ?? null
    })
    expect(levels).toEqual([null, null, "mild"])
  })

  test("property: triggers exactly when the 3 newest keys since the last trigger are equal", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom("a", "b", ""), { maxLength: 40 }), (texts) => {
        // Reference: a run counter of identical recorded keys that restarts after every trigger.
        let run = 0
        let prev: string | null = null
        let count = 0
        const expected: Array<string | null> = []
        for (const t of texts) {
          if (t === "") {
            expected.push(null)
            continue
          }
          run = t === prev ? run + 1 : 1
          prev = t
          if (run === 3) {
            count++
            expected.push(count === 1 ? "mild" : count === 2 ? "strong" : "terminate")
            run = 0
            prev = null
          } else expected.push(null)
        }
        expect(feed(texts).triggers).toEqual(expected)
      })
    )
  })

  test("state is plain JSON (serializable round trip)", () => {
    const s = feed(["a", "b"]).state
    const back = JSON.parse(JSON.stringify(s)) as TextLoopState
    const r = TextLoopDetector.consume(back, reply({ id: "z", text: "b" }), { cropped: false })
    expect(r.state.buffer.length).toBe(3)
  })
})

describe("work between the repeats", () => {
  const testRun = (i: number) => reply({ id: `t${i}`, text: "Let me run the tests again.", tools: [["bash", { command: "pytest -q tests/test_parser.py" }]] })
  const edit = (i: number) => reply({ id: `e${i}`, tools: [["edit", { path: "src/parser.py", old: `a${i}`, new: `b${i}` }]] })
  const consumeAll = (steps: ReadonlyArray<{ readonly reply: ReturnType<typeof reply>; readonly changed: boolean }>) => {
    let state = TextLoopDetector.init()
    return steps.map(({ reply: r, changed }) => {
      const step = TextLoopDetector.consume(state, r, { cropped: false, changed })
      state = step.state
      return step.trigger?.level ?? null
    })
  }

  test("a file changed by another step between two like replies starts the run over", () => {
    const steps = Array.from({ length: 12 }, (_, i) => [{ reply: edit(i), changed: true }, { reply: testRun(i), changed: false }]).flat()
    expect(consumeAll(steps).filter((t) => t !== null)).toEqual([])
  })

  test("the same narrated step that writes the same thing again and again is still a loop", () => {
    const write = (i: number) => reply({ id: `w${i}`, text: "Let me write the config file.", tools: [["write", { path: "config.json", content: "{}" }]] })
    expect(consumeAll(Array.from({ length: 3 }, (_, i) => ({ reply: write(i), changed: true })))).toEqual([null, null, "mild"])
  })

  test("a step that changed nothing between them does not: a look at a file is no work done", () => {
    const look = (i: number) => reply({ id: `l${i}`, tools: [["read", { path: "src/parser.py" }]] })
    const steps = Array.from({ length: 3 }, (_, i) => [{ reply: look(i), changed: false }, { reply: testRun(i), changed: false }]).flat()
    expect(consumeAll(steps).at(-1)).toBe("mild")
  })
})

describe("one paragraph over other calls", () => {
  const apology =
    "I apologize for the confusion. Looking at this more carefully, the issue is that the reconnect timer is not cleared when the socket closes. Let me take a step back."
  const grep = (i: number, text: string) => reply({ id: `g${i}`, text, tools: [["bash", { command: `grep -n pattern${i} src/ws.ts` }]] })
  const levels = (steps: ReadonlyArray<ReturnType<typeof reply>>, changed: (i: number) => boolean = () => false) => {
    let state = TextLoopDetector.init()
    return steps.map((r, i) => {
      const step = TextLoopDetector.consume(state, r, { cropped: false, changed: changed(i) })
      state = step.state
      return step.trigger?.level ?? null
    })
  }

  test("a long paragraph said on bufferSize steps in a row is a loop whatever the calls; its next trigger needs as many fresh", () => {
    expect(apology.length).toBeGreaterThanOrEqual(PARAGRAPH_CHARS)
    const out = levels(Array.from({ length: 10 }, (_, i) => grep(i, apology)))
    expect(out).toEqual([null, null, null, null, "mild", null, null, null, null, "strong"])
  })

  test("short narration over other calls is how agents talk; a short step or another step's file change breaks a paragraph's run", () => {
    expect(levels(Array.from({ length: 10 }, (_, i) => grep(i, "Let me check the next place the timer is set.")))).toEqual(Array(10).fill(null))
    const broken = Array.from({ length: 8 }, (_, i) => grep(i, i === 4 ? "Now the tests." : apology))
    expect(levels(broken)).toEqual(Array(8).fill(null))
    const edited = Array.from({ length: 8 }, (_, i) => (i === 4 ? reply({ id: "e", tools: [["edit", { path: "src/ws.ts" }]] }) : grep(i, apology)))
    expect(levels(edited, (i) => i === 4)).toEqual(Array(8).fill(null))
  })
})
