/**
 * Runaway shapes the long-period rule must catch (docs/repetition.md, "When it trips"), each
 * generated here, after some loop-free prose, and judged by where the trip lands relative to the
 * loop's start: within 5 copies and 6 000 characters for blocks of 25+ tokens (up to 1 000
 * characters), within 6 000 characters for short counter lines (`shortChars` of them). Every
 * shape is also fed as reasoning through RepeatGuard and in many tiny and a few huge deltas: the
 * verdict must not depend on how the stream was cut.
 */
import { describe, expect, test } from "bun:test"
import { DEFAULT_LONG_REPEAT_OPTIONS } from "./long-repeat-options.js"
import { LongRepeatMonitor, scanLongRepeat, type LongRepeatTrip } from "./long-repeat-monitor.js"
import { RepeatGuard, type GuardTrip } from "./repeat-guard.js"
import { RUNAWAY_SHAPES, hanProse, type RunawayInstance } from "./runaway-shapes.fixture.js"
import { prose, rng, words } from "./text.fixture.js"

const hex = (r: () => number, n: number) => Array.from({ length: n }, () => "0123456789abcdef"[Math.floor(r() * 16)]).join("")

const intro = prose(1, 12) + "\n\n"

interface Shape {
  readonly name: string
  /** Copy i of the looping block. */
  readonly block: (i: number) => string
  /** The trip must land before the end of this many copies (and within 6 000 characters). */
  readonly within: number
}

const paragraph = words(rng(41), 45)
const paragraph2 = words(rng(43), 30)
/** One of `values`, picked at random for copy i (seeded by `salt`). */
const pickFor = <T,>(values: ReadonlyArray<T>, i: number, salt: number): T => values[Math.floor(rng(i * 31 + salt)() * values.length)]!
const WORDINGS = [
  "Let me check the parser output once more to be sure.",
  "I should verify the parser result again before moving on.",
  "Maybe the parser output is wrong, so I will look at it again."
]
const FILES = ["src/parser.ts", "src/render/tree.ts", "lib/config.js", "test/module.test.ts", "packages/core/index.ts"]
const SHAPES: ReadonlyArray<Shape> = [
  { name: "a paragraph whose counter goes up each copy", block: (i) => `Attempt ${i + 3}: ${paragraph}.\n\n`, within: 5 },
  {
    name: "a paragraph whose every number changes by its own step",
    block: (i) => `Checking row ${i + 1} of ${200 + i * 3}: ${paragraph} (offset ${i * 64}).\n`,
    within: 5
  },
  { name: "a paragraph carrying a fresh random hex id each copy", block: (i) => `Request ${hex(rng(i + 7), 12)} ${paragraph}.\n`, within: 5 },
  {
    name: "a 12-line code fragment whose loop index changes",
    block: (i) =>
      [
        `    def step_${i}(self, value):`,
        `        # attempt ${i} of the retry`,
        `        result = self.parse(value, limit=${i * 7})`,
        `        if result is None:`,
        `            return self.fallback(${i})`,
        `        for item in result.items:`,
        `            if item.size > ${100 + i}:`,
        `                self.log.warning("large item %s", item)`,
        `            self.total += item.size`,
        `        self.count += 1`,
        `        return result`,
        ``
      ].join("\n") + "\n",
    within: 5
  },
  {
    name: "two alternating paragraphs (A B A B …)",
    block: (i) => (i % 2 === 0 ? paragraph + ".\n\n" : words(rng(42), 38) + ".\n\n"),
    // A copy of the block here is one paragraph: A B counts as 2.
    within: 10
  },
  {
    name: "a paragraph whose one word varies among a few values",
    block: (i) => `Wait, is it \`${["msup", "msub", "msubsup"][Math.floor(rng(i + 100)() * 3)]}\` here? ${paragraph}.\n`,
    within: 6
  },
  // Varying in 2–3 places per copy: the cuts move, so the copies differ in chunk count and only
  // the echoes of their chunks (chunk-echoes.ts) line up; those need copies + 3 copies.
  { name: "a paragraph whose middle sentence rotates among 3 wordings", block: (i) => `${paragraph}. ${WORDINGS[i % 3]} ${paragraph2}.\n\n`, within: 9 },
  { name: "a paragraph whose middle sentence is one of 3 wordings at random", block: (i) => `${paragraph}. ${pickFor(WORDINGS, i, 5)} ${paragraph2}.\n\n`, within: 9 },
  {
    name: "a paragraph where two words each vary among 3 values",
    block: (i) => `Wait, is it ${pickFor(["msup", "msub", "msubsup"], i, 1)} here? ${paragraph} or ${pickFor(["mrow", "mi", "mo"], i, 2)} there. ${paragraph2}.\n`,
    within: 8
  },
  {
    name: "a block where three words each vary among 3 values",
    block: (i) =>
      `Wait, is it ${pickFor(["msup", "msub", "msubsup"], i, 1)} here? ${paragraph.slice(0, 120)} or ${pickFor(["mrow", "mi", "mo"], i, 2)} there. ${paragraph2} and ${pickFor(["left", "right", "center"], i, 3)}.\n`,
    within: 8
  },
  // A CJK paragraph has no spaces to tell one sentence from several copies of a short one
  // (the short-period rule's business), so it trips by length: exact over runChars, a counter over shortChars.
  {
    name: "a Chinese paragraph with a step counter (within 6 000 characters)",
    block: (i) => `第${i + 1}步：我再检查一下这个文件的配置，确认解析器返回的嵌套表格行顺序是否正确，然后重新运行格式化测试并比较输出结果。\n`,
    within: 1_000
  },
  { name: "a Chinese paragraph repeated exactly (within 6 000 characters)", block: () => "我再检查一下这个文件的配置，确认解析器返回的嵌套表格行顺序是否正确，然后重新运行格式化测试。\n", within: 1_000 },
  {
    name: "a 1 000-character block with the copy's number on every line",
    block: (i) => prose(78, 40).slice(0, 1_000).replace(/((?:\S+ ){8})/g, `$1${i}\n`) + "\n",
    within: 5
  },
  { name: "a 25-token block whose counter changes", block: (i) => `${words(rng(25), 24)} ${i}.\n`, within: 5 },
  { name: "a 1 000-character block whose counter changes", block: (i) => `Pass ${i}. ${prose(77, 60).slice(0, 990)}\n`, within: 5 }
]

// A short block is judged by characters (shortChars), not copies: the 6 000 limit decides.
const SHORT_WITHIN = 1_000
const SHORT_SHAPES: ReadonlyArray<Shape> = [
  { name: '"Step N: check the value again." ×1000', block: (i) => `Step ${i + 17}: check the value again.\n`, within: SHORT_WITHIN },
  { name: '"Attempt N failed, retrying" ×1000', block: (i) => `Attempt ${i + 1} failed, retrying...\n`, within: SHORT_WITHIN },
  { name: "a counter in a short sentence on one line ×1000", block: (i) => `Now checking item ${i * 2} again. `, within: SHORT_WITHIN },
  {
    name: "a log line whose clock ticks a second per line, rolling over minutes ×1000",
    block: (i) => {
      const t = 12 * 3600 + 40 + i
      const clock = [Math.floor(t / 3600), Math.floor(t / 60) % 60, t % 60].map((n) => String(n).padStart(2, "0")).join(":")
      return `[${clock}] connection refused by the server, retrying now\n`
    },
    within: SHORT_WITHIN
  },
  { name: "a retry log line with a growing delay ×1000", block: (i) => `[retry ${i}] connection refused, waiting ${i * 5} ms\n`, within: SHORT_WITHIN }
]

const textOf = (shape: Shape, copies: number): string => intro + Array.from({ length: copies }, (_, i) => shape.block(i)).join("")

/** Where copy `n` (1-based) of the loop ends, in characters from the loop's start. */
const endOfCopy = (shape: Shape, n: number): number => Array.from({ length: n }, (_, i) => shape.block(i).length).reduce((a, b) => a + b, 0)

const expectCaught = (shape: Shape, trip: LongRepeatTrip | null): void => {
  expect(trip).not.toBeNull()
  const into = trip!.char - intro.length
  expect(into).toBeGreaterThanOrEqual(0)
  // Whitespace at a copy's end is only settled by the next character, so a trip at the end of
  // the last allowed copy reports the first character after it.
  expect(into).toBeLessThanOrEqual(Math.min(endOfCopy(shape, shape.within), 6_000))
}

/** The same text through RepeatGuard, as reasoning deltas of `size` characters, then the answer. */
const guardTrip = (text: string, size: number) => {
  const guard = new RepeatGuard()
  for (let at = 0; at < text.length; at += size) {
    const trip = guard.push(text.slice(at, at + size))
    if (trip !== null) return trip
  }
  return guard.flush()
}

describe("runaway shapes: caught early", () => {
  for (const shape of [...SHAPES, ...SHORT_SHAPES]) {
    test(shape.name, () => {
      const text = textOf(shape, 1_000)
      expectCaught(shape, scanLongRepeat(text))
    })
  }
})

describe("runaway shapes: the way the stream is cut does not change the verdict", () => {
  for (const shape of [...SHAPES, ...SHORT_SHAPES]) {
    test(`${shape.name}: tiny deltas, huge deltas, reasoning through RepeatGuard`, () => {
      const text = textOf(shape, 300)
      const whole = scanLongRepeat(text)
      for (const size of [1, 3, 17, 5_000, 60_000]) {
        const monitor = new LongRepeatMonitor()
        let trip: LongRepeatTrip | null = null
        for (let at = 0; at < text.length && trip === null; at += size) trip = monitor.push(text.slice(at, at + size))
        expect(trip).toEqual(whole)
      }
      const guarded = guardTrip(text, 7)
      expect(guarded).not.toBeNull()
      if (guarded?.rule === "long") expect(guarded.char).toBe(whole!.char)
    })
  }

  test("random split points: the same trip as the whole text (property, 60 cuts)", () => {
    const r = rng(2026)
    for (let round = 0; round < 60; round++) {
      const shape = [...SHAPES, ...SHORT_SHAPES][round % (SHAPES.length + SHORT_SHAPES.length)]!
      const text = textOf(shape, 120)
      const whole = scanLongRepeat(text)
      const monitor = new LongRepeatMonitor()
      let trip: LongRepeatTrip | null = null
      let at = 0
      while (at < text.length && trip === null) {
        // Mostly small deltas, now and then a huge one.
        const size = r() < 0.1 ? 1 + Math.floor(r() * 4_000) : 1 + Math.floor(r() * 24)
        trip = monitor.push(text.slice(at, at + size))
        at += size
      }
      expect(trip).toEqual(whole)
    }
  })
})

describe("short lines with one value at random", () => {
  test("a request id or a timing that changes at random: caught once the lines cover 2 × shortChars", () => {
    const r = rng(31)
    const limit = 2 * DEFAULT_LONG_REPEAT_OPTIONS.shortChars
    for (const block of [
      () => `INFO request handled in ${Math.floor(r() * 900)}ms for the dashboard endpoint of the admin service\n`,
      () => `Request ${hex(r, 8)} failed, retrying the upload now.\n`
    ]) {
      const copies = Array.from({ length: 1_000 }, block)
      const trip = scanLongRepeat(intro + copies.join(""))
      expect(trip).not.toBeNull()
      expect(trip!.char - intro.length).toBeLessThan(limit + 2 * copies[0]!.length)
    }
  })

  test("rows with several values at random (a data table) do not trip", () => {
    const r = rng(32)
    const rows = Array.from({ length: 600 }, () => `collating-element <U${hex(r, 4)}_${hex(r, 4)}> from "<U${hex(r, 4)}>" % reordered syllable\n`)
    expect(scanLongRepeat(rows.join(""))).toBeNull()
  })
})

describe("varying in several places: caught, but late (docs/repetition.md, known limits)", () => {
  test("a file name among 5 and a random line number in a paragraph: within 30 copies", () => {
    for (const block of [
      (i: number) => `Looking at ${pickFor(FILES, i, 1)} line ${Math.floor(rng(i + 9)() * 900)}: ${paragraph}.\n\n`,
      (i: number) => `The error is in ${pickFor(FILES, i, 1)}. ${paragraph} So line ${Math.floor(rng(i + 9)() * 900)} of ${pickFor(FILES, i, 2)} must change. ${paragraph2}.\n\n`
    ]) {
      const shape: Shape = { name: "file and line", block, within: 30 }
      const trip = scanLongRepeat(textOf(shape, 400))
      expect(trip).not.toBeNull()
      expect(trip!.char - intro.length).toBeLessThanOrEqual(endOfCopy(shape, 30))
    }
  })
})

describe("near repeats that are not loops", () => {
  test("near-identical entries whose varying part is new in each (typed arrays, is_dir / is_file …) do not trip", () => {
    const typed = ["Int8", "Uint8", "Uint8Clamped", "Int16", "Uint16", "Int32", "Uint32", "Float32", "Float64", "BigInt64", "BigUint64"]
    const includes = typed
      .map(
        (t) =>
          `interface ${t}Array<TArrayBuffer extends ArrayBufferLike> {\n    /**\n     * Determines whether an array includes a certain element, returning true or false as appropriate.\n     * @param searchElement The element to search for.\n     * @param fromIndex The position in this array at which to begin searching for searchElement.\n     */\n    includes(searchElement: number, fromIndex?: number): boolean;\n}\n\n`
      )
      .join("")
    expect(scanLongRepeat(prose(34, 3) + "\n" + includes + prose(35, 3))).toBeNull()
    const methods = ["is_dir", "is_file", "is_mount", "is_symlink", "is_block_device", "is_char_device", "is_fifo", "is_socket", "exists", "is_junction", "is_reserved", "is_absolute"]
    const listing = methods
      .map(
        (m) =>
          `    def ${m}(self):\n        """\n        Whether this path is what ${m} asks about.\n        """\n        try:\n            return self._check_mode(self.stat().st_mode)\n        except OSError as e:\n            if not _ignore_error(e):\n                raise\n            # Path doesn't exist or is a broken symlink\n            return False\n        except ValueError:\n            # Non-encodable path\n            return False\n\n`
      )
      .join("")
    expect(scanLongRepeat(prose(36, 3) + "\n" + listing + prose(37, 3))).toBeNull()
  })


  test("a record type spelled under the same 8 keys in two places (a config type's input and output) does not trip", () => {
    // The varying key comes back exactly, but only after all 8 others: a listing, not a rotation.
    const keys = ["network", "server", "overloaded", "unknown", "rateLimit", "maxJudge", "timeout", "protocol"]
    const record = (k: string) =>
      `        readonly ${k}?: {\n            readonly mode?: "bounded" | "persistent" | undefined;\n            readonly maxRetries?: number | undefined;\n            readonly deadlineMs?: number | undefined;\n            readonly initialDelayMs?: number | undefined;\n            readonly maxDelayMs?: number | undefined;\n        } | undefined;\n`
    const twice = ["retry", "fallback"].map((section) => `    readonly ${section}: {\n${keys.map(record).join("")}    };\n`).join("")
    expect(scanLongRepeat("declare const config: {\n" + twice + "};\n")).toBeNull()
  })

  test("an enumeration of near-identical declarations (SHA1 … SHA512, m11 … m44) does not trip", () => {
    const sha = (n: number) => `  class SHA${n} extends CryptoHasher<SHA${n}> {\n    /** The number of bytes the hash produces. */\n    static readonly byteLength: ${n / 8};\n  }\n`
    expect(scanLongRepeat(prose(30, 3) + [1, 224, 256, 384, 512].map(sha).join("") + prose(31, 3))).toBeNull()
    const cells = [11, 12, 13, 14, 21, 22, 23, 24, 31, 32, 33, 34, 41, 42, 43, 44]
    const matrix = cells.map((m) => `    /** [MDN Reference](https://developer.mozilla.org/docs/Web/API/DOMMatrix#m${m}) */\n    m${m}: number;\n`).join("")
    expect(scanLongRepeat(prose(32, 3) + matrix + prose(33, 3))).toBeNull()
  })

  test("a changelog whose versions and commit ids change does not trip", () => {
    const r = rng(5)
    const entries = Array.from({ length: 60 }, (_, i) => `## 3.10.${60 - i}\n\n### Patch Changes\n\n- Updated dependencies [${hex(r, 7)}]:\n  - effect@3.10.${60 - i}\n\n`)
    expect(scanLongRepeat("# effect\n\n" + entries.join(""))).toBeNull()
  })

  test("CSV rows, a hex dump and a numbered list of different items do not trip", () => {
    const r = rng(9)
    const csv = Array.from({ length: 500 }, (_, i) => `${i},${Math.floor(r() * 1000)},${(r() * 100).toFixed(2)},${["ok", "fail", "skip"][i % 3]}`).join("\n")
    expect(scanLongRepeat("id,value,score,status\n" + csv)).toBeNull()
    const dump = Array.from({ length: 300 }, (_, i) => `${(i * 16).toString(16).padStart(8, "0")}: ${hex(r, 32).replace(/(.{4})/g, "$1 ")} |${words(r, 2).slice(0, 16)}|`).join("\n")
    expect(scanLongRepeat(dump)).toBeNull()
    const list = Array.from({ length: 300 }, (_, i) => `${i + 1}. ${words(r, 5 + Math.floor(r() * 5))}`).join("\n")
    expect(scanLongRepeat(list)).toBeNull()
  })

  test("counter lines covering less than shortChars do not trip (a changelog listing lib-1.c … lib-90.c)", () => {
    const line = (i: number) => `\t* testsuite/libgomp.oacc-c-c++-common/lib-${i + 1}.c: Likewise.\n`
    const count = Math.floor(DEFAULT_LONG_REPEAT_OPTIONS.shortChars / line(50).length) - 2
    const lines = Array.from({ length: count }, (_, i) => line(i)).join("")
    expect(scanLongRepeat(prose(3, 4) + "\n" + lines + prose(4, 4))).toBeNull()
  })

  test("four copies of a paragraph whose counter changes do not trip (near repeats need copies + 1: p1 … p4 and x, y, z, w enumerations come in fours)", () => {
    const block = (i: number) => `Attempt ${i + 3}: ${paragraph}.\n\n`
    expect(scanLongRepeat(intro + [0, 1, 2, 3].map(block).join("") + prose(5, 6))).toBeNull()
  })
})

describe("any input", () => {
  test("random code units (lone surrogates, controls, CJK, digits) under extreme valid options never throw", () => {
    const r = rng(77)
    const units = [0x00, 0x09, 0x0a, 0x20, 0x30, 0x39, 0x41, 0x61, 0x66, 0x7a, 0x85, 0xa0, 0x3000, 0x4e00, 0xd800, 0xdc00, 0xff21, 0xfeff, 0x2028]
    const settings = [{}, { copies: 2, minBlockChars: 1, maxBlockChars: 1, minWords: 0, runChars: 1, shortChars: 1 }, { maxBlockChars: 100_000 }]
    for (const options of settings) {
      const guard = new RepeatGuard({ long: options })
      for (let n = 0; n < 200; n++) {
        const text = String.fromCharCode(...Array.from({ length: Math.floor(r() * 400) }, () => (r() < 0.5 ? units[Math.floor(r() * units.length)]! : Math.floor(r() * 0x10000))))
        expect(() => guard.push(text)).not.toThrow()
      }
      expect(() => guard.flush()).not.toThrow()
    }
  })
})

/** Where a runaway must be caught, from its onset. */
const CATCH_WITHIN = 6_000
/** Generated instances per shape (runaway-shapes.fixture.ts): each draws its own bodies, openers, lengths and steps. */
const INSTANCES = 30

/** RepeatGuard over `text` in deltas of `size`: the trip, and the end of the delta that returned it. */
const guardOver = (text: string, size: number): { readonly trip: GuardTrip | null; readonly at: number } => {
  const guard = new RepeatGuard()
  for (let at = 0; at < text.length; at += size) {
    const trip = guard.push(text.slice(at, at + size))
    if (trip !== null) return { trip, at: Math.min(text.length, at + size) }
  }
  return { trip: guard.flush(), at: text.length }
}

/** Characters from the onset to where the guard tripped: the tripping character for the long rule, the delta's end for the short-period rule. */
const charsToTrip = (instance: RunawayInstance, size: number): { readonly trip: GuardTrip | null; readonly into: number } => {
  const { trip, at } = guardOver(instance.text, size)
  return { trip, into: (trip?.rule === "long" ? trip.char : at) - instance.onset }
}

describe("generated runaway shapes: every instance caught within 6 000 characters of its onset, in deltas of 1, 17 and 5 000", () => {
  for (const shape of RUNAWAY_SHAPES) {
    test(`${shape.name} (${INSTANCES} instances)`, () => {
      for (let seed = 1; seed <= INSTANCES; seed++) {
        const instance = shape.generate(seed, CATCH_WITHIN + 1_000)
        const [one, ...others] = [1, 17, 5_000].map((size) => charsToTrip(instance, size))
        expect({ seed, tripped: one!.trip !== null }).toEqual({ seed, tripped: true })
        expect(one!.into).toBeGreaterThanOrEqual(0)
        expect(one!.into).toBeLessThanOrEqual(CATCH_WITHIN)
        // The same trip whatever the deltas (a delta of 5 000 reports the short-period rule's trip at its end).
        for (const other of others) {
          expect(other.trip).toEqual(one!.trip)
          if (other.trip?.rule === "long") expect(other.into).toBe(one!.into)
        }
      }
    })
  }

  test("a loop that starts in reasoning and goes on in the text (a flush between the parts) is caught the same way", () => {
    for (const shape of RUNAWAY_SHAPES) {
      const instance = shape.generate(11, CATCH_WITHIN + 1_000)
      const split = instance.onset + 1_500
      const guard = new RepeatGuard()
      let trip: GuardTrip | null = null
      let end = 0
      for (let at = 0; at < instance.text.length && trip === null; at += 17) {
        if (at <= split && split < at + 17) trip = guard.flush()
        end = Math.min(instance.text.length, at + 17)
        trip ??= guard.push(instance.text.slice(at, end))
      }
      expect(trip).not.toBeNull()
      expect((trip!.rule === "long" ? trip!.char : end) - instance.onset).toBeLessThanOrEqual(CATCH_WITHIN)
    }
  })

  test("the new shapes trip the long rule with the kind that saw them", () => {
    const kinds = RUNAWAY_SHAPES.map((shape) => {
      const { trip } = guardOver(shape.generate(7, CATCH_WITHIN + 1_000).text, 64)
      return trip?.rule === "long" ? trip.kind : trip?.rule
    })
    expect(kinds).toContain("recurrence")
    expect(kinds).toContain("whitespace")
    expect(kinds).toContain("repeat")
  })
})

/** Real-looking Chinese: distinct sentences about one task, each written once. */
const CHINESE_PROSE = [
  "我先看一下这个仓库的结构，主要的代码都在包目录下面。",
  "解析器负责把模型输出的文本切成片段，然后交给检测器判断。",
  "如果一段文字在很短的距离内反复出现，检测器就会停止读取这个流。",
  "测试用例覆盖了英文、中文和混合文本，也覆盖了很小和很大的分片。",
  "我注意到配置文件里有一个阈值，默认是两千多个字符。",
  "接下来我会修改这个函数，让它在遇到空白字符时也能正确计数。",
  "修改之后需要重新运行单元测试，确认没有引入新的问题。",
  "另外，文档里的表格也要更新，说明每个参数的含义和默认值。",
  "最后我会整理一下提交记录，把每一步的原因写清楚。",
  "总的来说，这次改动的范围不大，但需要仔细验证边界情况。"
].join("")

/** Digits of π (a long decimal constant that is legitimately long once): Machin's formula on BigInt. */
const piDigits = (n: number): string => {
  const scale = 10n ** BigInt(n + 10)
  const arctanInv = (x: bigint): bigint => {
    let sum = 0n
    let term = scale / x
    for (let k = 1n; term !== 0n; k += 2n) {
      sum += ((k - 1n) / 2n) % 2n === 0n ? term / k : -(term / k)
      term /= x * x
    }
    return sum
  }
  return (4n * (4n * arctanInv(5n) - arctanInv(239n))).toString().slice(0, n)
}

const HEALTHY_NEAR_SHAPES: ReadonlyArray<{ readonly name: string; readonly text: () => string }> = [
  {
    name: "a numbered list whose numbers move in irregular steps, every item different",
    text: () => {
      const r = rng(11)
      let n = 3
      return Array.from({ length: 200 }, () => `${(n += 1 + Math.floor(r() * 6))}. ${words(r, 6 + Math.floor(r() * 8))}.`).join("\n")
    }
  },
  {
    name: "numbered steps that share their verb and object but differ in the rest",
    text: () => {
      const r = rng(12)
      return Array.from({ length: 120 }, (_, i) => `Step ${i * 3 + Math.floor(r() * 3)}: run the tests in ${words(r, 3)} and compare ${words(r, 4)}.`).join("\n")
    }
  },
  {
    name: "a markdown table of test results",
    text: () => {
      const r = rng(13)
      const rows = Array.from({ length: 250 }, (_, i) => `| test_${words(r, 2).replace(" ", "_")}_${i} | ${r() < 0.9 ? "passed" : "failed"} | ${(r() * 2).toFixed(2)}s |`)
      return "| test | result | time |\n| --- | --- | --- |\n" + rows.join("\n")
    }
  },
  { name: "real Chinese prose, and loop-free Chinese sentences", text: () => CHINESE_PROSE + "\n\n" + hanProse(14, 300) },
  {
    name: "code with indentation and blank lines: near-identical methods, each a different name",
    text: () =>
      ["is_dir", "is_file", "is_mount", "is_symlink", "is_block_device", "is_char_device", "is_fifo", "is_socket", "exists", "is_junction", "is_reserved", "is_absolute", "is_relative_to", "is_hidden"]
        .map((m) => `    def ${m}(self):\n        """\n        Whether this path is what ${m} asks about.\n        """\n\n        try:\n            return self._check_mode(self.stat().st_mode)\n\n        except OSError as e:\n            if not _ignore_error(e):\n                raise\n            return False\n\n\n`)
        .join("")
  },
  {
    name: "long decimal constants, each written once (π to 3 000 digits, 1/7, 0.1 + 0.2, an all-zero hash, a random 512-digit hex key)",
    text: () => {
      const r = rng(15)
      return `Pi is 3.${piDigits(3_000).slice(1)}.\n1/7 = 0.142857142857142857 and 0.1 + 0.2 = 0.30000000000000004.\nThe zero hash is 0x${"0".repeat(64)}.\nThe key is ${hex(r, 512)}.\n`
    }
  },
  {
    name: "markdown with many blank lines between sections",
    text: () => Array.from({ length: 60 }, (_, i) => `## Section ${i + 1}\n\n${prose(100 + i, 3)}` + "\n".repeat(3 + (i % 20))).join("")
  },
  {
    name: "a log excerpt quoted once (requests, a Java stack trace, pytest output)",
    text: () => {
      const r = rng(16)
      const paths = ["/api/users", "/api/orders", "/health", "/api/items/search"]
      const log = Array.from({ length: 60 }, (_, i) => `2026-11-30 12:00:${String(i % 60).padStart(2, "0")} INFO request handled in ${Math.floor(r() * 90)}ms path=${paths[Math.floor(r() * paths.length)]} status=200`)
      const frames = ["DeserializerCache", "ObjectMapper", "BeanDeserializer", "DeserializationContext", "JsonParser", "SettableBeanProperty"]
      const trace = Array.from({ length: 40 }, (_, i) => `    at com.fasterxml.jackson.databind.${frames[i % frames.length]}.${words(r, 1)}Value${i}(${frames[(i * 7) % frames.length]}.java:${Math.floor(r() * 900)})`)
      const pytest = Array.from({ length: 80 }, (_, i) => `tests/test_${words(r, 1)}.py::test_${words(r, 2).replace(" ", "_")} PASSED [${String(Math.floor(((i + 1) * 100) / 80)).padStart(3)}%]`)
      return `Here is the log:\n\n${log.join("\n")}\n\nand the trace:\n\njava.lang.IllegalStateException: boom\n${trace.join("\n")}\n\nThe tests:\n\n${pytest.join("\n")}\n\nSo the failure comes from the deserializer.`
    }
  }
]

describe("healthy text near the runaway shapes: no trip, in any deltas", () => {
  for (const { name, text } of HEALTHY_NEAR_SHAPES) {
    test(name, () => {
      const whole = text()
      expect(whole.length).toBeGreaterThan(2_000)
      for (const size of [17, whole.length]) expect(guardOver(whole, size).trip).toBeNull()
    })
  }
})

describe("describeGuardTrip names what the long rule saw", () => {
  test("whitespace, recurrence and a repeated block each read differently", async () => {
    const { describeGuardTrip } = await import("./repeat-guard.js")
    const flood = guardOver("Done." + " ".repeat(3_000), 64).trip!
    expect(describeGuardTrip(flood)).toMatch(/^a run of 1024 whitespace characters \(character \d+, token \d+\)$/)
    const restarts = guardOver(RUNAWAY_SHAPES[0]!.generate(3).text, 64).trip!
    expect(describeGuardTrip(restarts)).toMatch(/^the same phrases written over and over for \d+ characters, one of them \d+ times/)
    const block = guardOver(intro + `Attempt 1: ${paragraph}.\n\n`.repeat(40), 64).trip!
    expect(describeGuardTrip(block)).toMatch(/^a block of \d+ characters repeated \d+ times/)
    // A recurrence whose phrases each came back once more says nothing of "1 times".
    expect(describeGuardTrip({ ...restarts, kind: "recurrence", copies: 1 } as typeof restarts)).toMatch(/^the same phrases written over and over for \d+ characters \(character/)
  })
})
