import { describe, expect, test } from "bun:test"
import { scanLongRepeat } from "./long-repeat-monitor.js"
import { prose, rng } from "./text.fixture.js"

const SENTENCES = [
  "Wait, the parser returns the nested table rows in the wrong order here.",
  "Let me look at how the renderer walks the tree before it prints anything.",
  "Maybe the config module sorts the keys again after the first pass.",
  "Actually the expected output keeps the order the user wrote it in."
]

/** `count` sentences drawn at random from `pool` (no fixed order, so no period lines them up). */
const shuffled = (pool: ReadonlyArray<string>, count: number, seed: number): string => {
  const r = rng(seed)
  return Array.from({ length: count }, () => pool[Math.floor(r() * pool.length)]!).join(" ")
}

const intro = prose(3, 10) + "\n\n"

describe("WordRecurrence (through the long rule)", () => {
  test("sentences written again and again in random order trip as a recurrence once the stretch covers recurChars", () => {
    const text = intro + shuffled(SENTENCES, 200, 1)
    for (const recurChars of [2_048, 4_000]) {
      const trip = scanLongRepeat(text, { recurChars })
      expect(trip?.kind).toBe("recurrence")
      expect(trip!.blockChars).toBeGreaterThanOrEqual(recurChars)
      expect(trip!.char - intro.length).toBeLessThan(recurChars + 1_500)
      expect(trip!.copies).toBeGreaterThanOrEqual(3)
    }
  })

  test("text written twice is seen but not hot: no trip", () => {
    const once = prose(40, 60)
    expect(scanLongRepeat(intro + once + "\n\n" + once + "\n\n" + prose(41, 10))).toBeNull()
  })

  test("the same rotation in code (symbols, indentation) or in rows of numbers does not trip by recurrence", () => {
    const code = ["    if (rows[i] > limit) { rows = sort(rows); }", "    const out = render(tree, { depth: 2 });", "    config.keys = config.keys.filter((k) => k !== key);"]
    const codeTrip = scanLongRepeat(intro + shuffled(code, 300, 2).replace(/; /g, ";\n"))
    expect(codeTrip?.kind).not.toBe("recurrence")
    const rows = ["12 34 56 row count total", "78 90 12 row count total", "34 56 78 row count total"]
    const rowsTrip = scanLongRepeat(intro + shuffled(rows, 400, 3).replace(/total /g, "total\n"))
    expect(rowsTrip?.kind).not.toBe("recurrence")
  })

  test("a healthy stretch that only recurs in part (boilerplate around new content) does not trip", () => {
    const r = rng(4)
    const entries = Array.from({ length: 80 }, () => `Fixed a crash in the ${prose(Math.floor(r() * 1e6), 1).slice(0, 40)} when the input is empty. Reported by a user.`)
    expect(scanLongRepeat(entries.join("\n"))).toBeNull()
  })
})
