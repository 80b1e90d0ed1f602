import { describe, expect, test } from "bun:test"
import { LongRepeatMonitor, scanLongRepeat } from "./long-repeat-monitor.js"
import { validateLongRepeatOptions, DEFAULT_LONG_REPEAT_OPTIONS } from "./long-repeat-options.js"
import { RepeatGuard } from "./repeat-guard.js"
import { scanRepetition, scanText } from "./scan.js"
import { prose, rng, words } from "./text.fixture.js"

const base64ish = (seed: number, n: number) => {
  const r = rng(seed)
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
  return Array.from({ length: n }, () => alphabet[Math.floor(r() * 64)]).join("")
}

/** The trip must come within 5 copies and 6 000 characters of where the loop starts. */
const expectCaughtEarly = (prefix: string, block: (i: number) => string, copies: number, maxChars = 6_000, copiesCount = true) => {
  const text = prefix + Array.from({ length: copies }, (_, i) => block(i)).join("")
  const trip = scanLongRepeat(text)
  expect(trip).not.toBeNull()
  const into = trip!.char - prefix.length
  const blockLength = block(0).length
  // A unit of a few characters is one token of a whitespace-free run: only the distance counts.
  expect(into).toBeLessThan(copiesCount ? Math.min(5 * blockLength + blockLength / 2, maxChars) : maxChars)
  expect(into).toBeGreaterThanOrEqual(0)
  return trip!
}

describe("long-period rule: runaway generations", () => {
  const intro = prose(1, 12) + "\n\n"

  test('"Wait, I am confused…" paragraph ×900', () => {
    const para = "Wait, I am confused. Is it `msubsup` or `msubsup`? The printer writes msubsup for a base with both a subscript and a superscript, but the test expects msup here. "
    expectCaughtEarly(intro, () => para, 900)
  })

  const fragment = (i: number, counterOnly: boolean) =>
    [
      `    def check_value(self, value):`,
      `        # attempt ${i} of the retry`,
      `        result = self.parse(value, limit=${counterOnly ? 70 : i * 7})`,
      `        if result is None:`,
      `            return self.fallback(${counterOnly ? 1 : i})`,
      `        for item in result.items:`,
      `            if item.size > ${counterOnly ? 100 : 100 + i}:`,
      `                self.log.warning("large item %s", item)`,
      `            self.total += item.size`,
      `        self.count += 1`,
      `        return result`,
      ``
    ].join("\n") + "\n"

  test("12-line code fragment ×300, exact", () => {
    const trip = expectCaughtEarly(intro, () => fragment(0, true), 300)
    expect(trip.view).toBe("exact")
  })

  test("12-line code fragment ×300 whose counter changes: near-exact, within 5 copies", () => {
    const trip = scanLongRepeat(intro + Array.from({ length: 300 }, (_, i) => fragment(i, true)).join(""))!
    expect(trip.view).toBe("near")
    expect(trip.char - intro.length).toBeLessThanOrEqual(5 * fragment(0, true).length)
  })

  test("12-line code fragment ×300 whose every number changes by its own step: within 5 copies and 6 000 characters", () => {
    const copies = Array.from({ length: 300 }, (_, i) => fragment(i, false))
    const trip = scanLongRepeat(intro + copies.join(""))!
    expect(trip).not.toBeNull()
    const fiveCopies = copies.slice(0, 5).join("").length
    expect(trip.char - intro.length).toBeLessThanOrEqual(Math.min(fiveCopies, 6_000))
  })

  test("an enumeration of a few near-identical blocks (SHA1, SHA256, …) is not a loop", () => {
    const member = (n: number) => `  class SHA${n} extends CryptoHasher<SHA${n}> {\n    /** The number of bytes the hash produces. */\n    static readonly byteLength: ${n / 8};\n  }\n`
    expect(scanLongRepeat(prose(30, 3) + [1, 224, 256, 384, 512].map(member).join("") + prose(31, 3))).toBeNull()
  })

  test("a catalog newest first (one body under versions 3.8, 3.7, 3.6, …) is a listing; the same catalog counting up trips as a loop", () => {
    const entry = (version: string) =>
      `  'nova-${version}-swift': {\n    readonly vision: true;\n    readonly jsonOutput: true;\n    readonly toolUse: true;\n    readonly streamed: true;\n    readonly webSearch: true;\n    readonly pageFetch: true;\n  };\n`
    const catalog = (versions: ReadonlyArray<string>) => `declare const catalog: {\n${versions.map(entry).join("")}};\n`
    const newestFirst = ["3.8", "3.7", "3.6", "3.5", "3.4", "3.3", "3.2"]
    expect(scanLongRepeat(catalog(newestFirst))).toBeNull()
    expect(scanLongRepeat(catalog(["4-argon", "4-carbon", "4-hydrogen", ...newestFirst]))).toBeNull()
    expect(scanLongRepeat(catalog(["7", "6", "5", "4", "3", "2", "1"]))).toBeNull()
    expect(scanLongRepeat(catalog([...newestFirst].reverse()))?.view).toBe("near")
    expect(scanLongRepeat(catalog(["1", "2", "3", "4", "5", "6", "7"]))?.view).toBe("near")
  })

  test("43-word paragraph ×400 (about 97 KB), as one line and as paragraphs", () => {
    const para = words(rng(7), 43) + ". "
    expect(para.split(" ").filter(Boolean).length).toBe(43)
    expectCaughtEarly(intro, () => para, 400)
    expectCaughtEarly(intro, () => para.trim() + "\n\n", 400)
  })

  test("whitespace-free runs: 0.0.0.0…, !!!!…, a repeated base64-like line", () => {
    expectCaughtEarly(intro + "The address is ", () => "0.", 5_000, 6_000, false)
    expectCaughtEarly(intro, () => "!", 20_000, 6_000, false)
    expectCaughtEarly(intro + "x = ", () => "0.0.0.0.", 5_000, 6_000, false)
    const line = base64ish(3, 76)
    expectCaughtEarly(intro + "data: ", () => line, 2_000)
    expectCaughtEarly(intro + "data: ", () => base64ish(5, 12), 2_000, 6_000, false)
    expectCaughtEarly(intro + "data: ", () => line + "\n", 2_000)
  })

  test("blocks from 25 tokens up to 1 000 tokens and 8 000 characters trip within 5 copies", () => {
    for (const n of [25, 60, 200, 1_000]) {
      const block = words(rng(n), n) + ".\n"
      const trip = expectCaughtEarly(intro, () => block, 8, 5.5 * block.length)
      expect(trip.copies).toBeLessThanOrEqual(5)
    }
    const big = prose(11, 200).slice(0, 8_000) + "\n"
    expect(big.length).toBeGreaterThanOrEqual(8_000)
    expectCaughtEarly(intro, () => big, 6, 5.5 * big.length)
  })

  test("the short-period rule cannot see these: a 25+-token block never trips it at the defaults", () => {
    const para = words(rng(9), 43) + ". "
    expect(scanText(intro + para.repeat(400)).repeat).toBe(false)
    expect(scanRepetition(intro + para.repeat(400)).long).not.toBeNull()
  })
})

describe("long-period rule: healthy text", () => {
  test("long loop-free prose does not trip", () => {
    expect(scanLongRepeat(prose(21, 2_000))).toBeNull()
  })

  test("three copies of a block are not enough (copies = 4)", () => {
    const block = words(rng(5), 60) + ".\n"
    expect(scanLongRepeat(prose(2, 5) + block.repeat(3) + prose(3, 5))).toBeNull()
  })

  test("a numeric table is not a loop: rows differ only in numbers and hold no words", () => {
    const rows = Array.from({ length: 400 }, (_, i) => `| ${i} | ${(i * 1.37).toFixed(2)} | ${(i * 7) % 101} | ${i * 3}.5 |`).join("\n")
    expect(scanLongRepeat("| a | b | c | d |\n|---|---|---|---|\n" + rows)).toBeNull()
  })

  test("a numbered list of different items does not trip; random base64 does not trip", () => {
    const r = rng(13)
    const list = Array.from({ length: 300 }, (_, i) => `${i + 1}. ${words(r, 6 + Math.floor(r() * 6))}`).join("\n")
    expect(scanLongRepeat(list)).toBeNull()
    expect(scanLongRepeat(base64ish(17, 40_000))).toBeNull()
  })

  test("disabled: never trips", () => {
    expect(scanLongRepeat("!".repeat(50_000), { enabled: false })).toBeNull()
  })
})

describe("long-period rule: streaming", () => {
  test("any cut into deltas gives the same trip as the whole text", () => {
    const text = prose(4, 10) + (words(rng(8), 50) + ". ").repeat(20)
    const whole = scanLongRepeat(text)
    expect(whole).not.toBeNull()
    const r = rng(99)
    for (let round = 0; round < 20; round++) {
      const monitor = new LongRepeatMonitor()
      let trip = null
      for (let at = 0; at < text.length && trip === null; ) {
        const size = 1 + Math.floor(r() * 80)
        trip = monitor.push(text.slice(at, at + size))
        at += size
      }
      expect(trip).toEqual(whole)
    }
  })

  test("the trip's token index counts the short-period rule's tokens up to the tripping character", () => {
    const text = "one two three " + "!".repeat(5_000)
    const trip = scanLongRepeat(text)!
    expect(trip.view).toBe("exact")
    expect(trip.token).toBe(3)
    expect(text[trip.char]).toBe("!")
  })

  test("trips once per stream; reset starts over", () => {
    const monitor = new LongRepeatMonitor()
    expect(monitor.push("!".repeat(3_000))).not.toBeNull()
    expect(monitor.push("!".repeat(3_000))).toBeNull()
    monitor.reset()
    expect(monitor.push("!".repeat(3_000))).not.toBeNull()
  })

  test("RepeatGuard trips on either rule: the short-period one first when both could, the long one alone on long blocks", () => {
    const guard = new RepeatGuard()
    expect(guard.push("Let me check the file again. ".repeat(25))?.rule).toBe("short")
    const long = new RepeatGuard()
    const trip = long.push((words(rng(12), 43) + ". ").repeat(10))
    expect(trip?.rule).toBe("long")
    const off = new RepeatGuard({ long: { enabled: false } })
    expect(off.push((words(rng(12), 43) + ". ").repeat(10))).toBeNull()
  })
})

describe("long-period options", () => {
  test("defaults are valid; each bad field is named", () => {
    expect(validateLongRepeatOptions(DEFAULT_LONG_REPEAT_OPTIONS)).toEqual([])
    const errors = validateLongRepeatOptions({ ...DEFAULT_LONG_REPEAT_OPTIONS, copies: 1, maxBlockChars: 0, runChars: -3 })
    expect(errors.map((e) => e.field).sort()).toEqual(["copies", "maxBlockChars", "runChars"])
    expect(validateLongRepeatOptions({ ...DEFAULT_LONG_REPEAT_OPTIONS, minBlockChars: 9_000 }).map((e) => e.field)).toEqual(["minBlockChars"])
    expect(() => new LongRepeatMonitor({ copies: 0 })).toThrow(/copies/)
    const shapeErrors = validateLongRepeatOptions({ ...DEFAULT_LONG_REPEAT_OPTIONS, recurChars: 0, whitespaceChars: 1 })
    expect(shapeErrors.map((e) => e.field).sort()).toEqual(["recurChars", "whitespaceChars"])
  })
})
