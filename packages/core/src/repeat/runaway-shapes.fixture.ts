/**
 * Seeded generators of runaway shapes that get past a plain repeat check (docs/repetition.md,
 * "Runaway shapes"): every instance draws its own bodies, openers, lengths and step sizes, so a
 * test or the bench asserts the catch over many instances of a shape, not over one text.
 * Test-only (not exported by the package).
 */
import { prose, rng, words } from "./text.fixture.js"

/** One generated runaway: healthy text, then the loop from character `onset` on. */
export interface RunawayInstance {
  readonly text: string
  readonly onset: number
}

export interface RunawayShape {
  readonly name: string
  /** The instance for `seed`: about `loopChars` characters of loop after a healthy prefix. */
  readonly generate: (seed: number, loopChars?: number) => RunawayInstance
}

type Rand = () => number

const pick = <T,>(r: Rand, values: ReadonlyArray<T>): T => values[Math.floor(r() * values.length)]!
const between = (r: Rand, min: number, max: number): number => min + Math.floor(r() * (max - min + 1))

/** Concatenate copies from `copy(i)` after `prefix` until the loop holds `loopChars` characters. */
const grow = (prefix: string, loopChars: number, copy: (i: number) => string): RunawayInstance => {
  let loop = ""
  for (let i = 0; loop.length < loopChars; i++) loop += copy(i)
  return { text: prefix + loop, onset: prefix.length }
}

/** A few sentences of loop-free prose before the loop, of a length that varies per instance. */
const prefixOf = (r: Rand): string => prose(between(r, 1, 1_000_000), between(r, 2, 12)) + pick(r, ["\n\n", "\n", " "])

const OPENERS = ["Wait,", "Actually,", "Let me re-check:", "Hmm,", "Alternatively,", "But wait,", "Hold on,", "Let me reconsider.", "Oh,", "No,", "Let me verify again:"]

/** A sentence of 8–18 words with its first letter capitalised. */
const sentence = (r: Rand): string => {
  const s = words(r, between(r, 8, 18))
  return s[0]!.toUpperCase() + s.slice(1) + pick(r, [".", ".", ".", "?"])
}

const MENTIONS = ["`render()`", "`src/render/tree.ts`", "`parse(value)`", "`config.keys`", "the `walk(node)` call", "`tests/test_parser.py`", "`self.total`", "`items[0]`", "`--max-depth`"]

/**
 * For half the instances, reasoning about code: a few vocabulary words stand for quoted names,
 * calls and paths (the same mention for the same word in every copy).
 */
const aboutCode = (r: Rand): ((text: string) => string) => {
  if (r() < 0.5) return (text) => text
  const named = new Map(["file", "parser", "config", "node", "tree", "function", "module", "value"].map((w) => [w, pick(r, MENTIONS)]))
  return (text) => text.replace(/\b(file|parser|config|node|tree|function|module|value)\b/g, (w) => named.get(w)!)
}

/** `text` with one word swapped for another vocabulary word, or dropped. */
const nudge = (r: Rand, text: string): string => {
  const parts = text.split(" ")
  const at = Math.floor(r() * parts.length)
  if (r() < 0.3 && parts.length > 4) parts.splice(at, 1)
  else parts[at] = words(r, 1)
  return parts.join(" ")
}

/**
 * Reasoning that restarts with a different opener each time, the body a few sentences where
 * each copy rewords a little: a sentence nudged (one word swapped or dropped), now and then a
 * sentence left out or swapped for its alternative wording. Half the instances reason about code.
 */
const restartOpeners: RunawayShape = {
  name: "restarts with a varying opener and a slightly different body",
  generate: (seed, loopChars = 20_000) => {
    const r = rng(seed)
    const prefix = prefixOf(r)
    const code = aboutCode(r)
    const body = Array.from({ length: between(r, 2, 5) }, () => code(sentence(r)))
    const alternatives = body.map((s) => nudge(r, s))
    const separator = pick(r, [" ", "\n\n", "\n"])
    return grow(prefix, loopChars, () => {
      const kept = body
        .filter(() => r() > 0.1)
        .map((s, k) => (r() < 0.25 ? alternatives[k % alternatives.length]! : r() < 0.2 ? nudge(r, s) : s))
      return `${pick(r, OPENERS)} ${kept.join(" ")}${separator}`
    })
  }
}

/** A paragraph started again and again, each time cut off at 50–90 % of its length (half of them about code). */
const restartCutShort: RunawayShape = {
  name: "a paragraph restarted and cut off at 50-90% of its length",
  generate: (seed, loopChars = 20_000) => {
    const r = rng(seed)
    const prefix = prefixOf(r)
    const code = aboutCode(r)
    const paragraph = Array.from({ length: between(r, 3, 9) }, () => code(sentence(r))).join(" ")
    const separator = pick(r, ["\n\n", "\n", " ", "... ", " — "])
    return grow(prefix, loopChars, () => {
      const cut = Math.floor(paragraph.length * (0.5 + 0.4 * r()))
      const opener = r() < 0.3 ? `${pick(r, OPENERS)} ` : ""
      return opener + paragraph.slice(0, cut) + separator
    })
  }
}

const ERRORS = ["TypeError: Unknown setting", "Error: cannot read property", "ValueError: invalid literal for", "KeyError: missing field", "AssertionError: expected value"]
const NAMES = ["style", "width", "theme", "config", "parser", "output", "token", "locale"]

/** Counter lines whose number moves in irregular steps (1–7 at random). */
const irregularCounter: RunawayShape = {
  name: "counter lines whose number moves in irregular steps",
  generate: (seed, loopChars = 20_000) => {
    const r = rng(seed)
    const prefix = prefixOf(r)
    const label = pick(r, ["Run", "Attempt", "Step", "Try", "Iteration", "Check"])
    const message = `${pick(r, ERRORS)} '${pick(r, NAMES)}'${pick(r, [".", "", " again.", ", retrying."])}`
    let n = between(r, 1, 500)
    return grow(prefix, loopChars, () => {
      n += between(r, 1, 7)
      return `${label} ${n}: ${message}\n`
    })
  }
}

/** Counter lines carrying a second, fixed number (a line, a port, an exit code), the counter in steps of 1–3. */
const counterWithFixedNumber: RunawayShape = {
  name: "counter lines that carry a second, fixed number",
  generate: (seed, loopChars = 20_000) => {
    const r = rng(seed)
    const prefix = prefixOf(r)
    const label = pick(r, ["Run", "Attempt", "Step", "Try"])
    const fixed = between(r, 2, 9_999)
    const error = pick(r, ERRORS)
    const name = pick(r, NAMES)
    const step = between(r, 1, 3)
    const line = pick(r, [
      (n: number) => `${label} ${n}: ${error} '${name}' at line ${fixed}.\n`,
      (n: number) => `${label} ${n} of ${fixed}: connection refused on port ${fixed + 1000}\n`,
      (n: number) => `[${label.toLowerCase()} ${n}] exit code ${fixed % 256}: ${error} '${name}'\n`,
      (n: number) => `${label} ${n}: ${error} '${name}' (limit ${fixed})\n`
    ])
    let n = between(r, 1, 50)
    return grow(prefix, loopChars, () => line((n += step)))
  }
}

/** Common Chinese characters, for generated CJK sentences. */
const HAN = "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处队南给色光门即保治北造百规热领七海口东导器压志世金增争济阶油思术极交受联什认六共权收证改清己美再采转更单风切打白教速花带安场身车例真务具万每目至达走积示议声报斗完类八离华名确才科张信马节话米整空元况今集温传土许步群广石记需段研界拉林律叫且究观越织装影算低持音众书布复容儿须际商非验连断深难近矿千周委素技备半办青省列习响约支般史感劳便团往酸历市克何除消构府称太准精值号率族维划选标写存候毛亲快效斯院查江型眼王按格养易置派层片始却专状育厂京识适属圆包火住调满县局照参红细引听该铁价严"
const CJK_PUNCT = ["，", "，", "，", "。"]

/** A Chinese sentence of `min`–`max` characters with a comma or two, ending in 。 */
const hanSentence = (r: Rand, min: number, max: number): string => {
  const n = between(r, min, max)
  let s = ""
  for (let i = 0; i < n; i++) s += HAN[Math.floor(r() * HAN.length)]!
  const comma = between(r, 3, Math.max(3, n - 3))
  return s.slice(0, comma) + pick(r, CJK_PUNCT.slice(0, 2)) + s.slice(comma) + "。"
}

/** Loop-free Chinese prose (different sentences). */
export const hanProse = (seed: number, sentences: number): string => {
  const r = rng(seed)
  return Array.from({ length: sentences }, () => hanSentence(r, 8, 30)).join(pick(r, ["", "\n"]))
}

/** Two Chinese sentences that alternate (A B A B …), each copy joined by nothing, a space or a line break. */
const hanAlternating: RunawayShape = {
  name: "Chinese: two sentences that alternate",
  generate: (seed, loopChars = 12_000) => {
    const r = rng(seed)
    const prefix = hanProse(between(r, 1, 1_000_000), between(r, 2, 10)) + "\n"
    const pair = [hanSentence(r, 6, 30), hanSentence(r, 6, 30)]
    const separator = pick(r, ["", "\n", " ", "\n\n"])
    return grow(prefix, loopChars, (i) => pair[i % 2]! + separator)
  }
}

/** 2–6 short Chinese lines repeated in random order. */
const hanRotating: RunawayShape = {
  name: "Chinese: short lines that rotate in random order",
  generate: (seed, loopChars = 12_000) => {
    const r = rng(seed)
    const prefix = hanProse(between(r, 1, 1_000_000), between(r, 2, 10)) + "\n"
    const lines = Array.from({ length: between(r, 2, 6) }, () => hanSentence(r, 4, 16))
    const separator = pick(r, ["\n", "\n", "", " "])
    return grow(prefix, loopChars, () => pick(r, lines) + separator)
  }
}

/** A number whose digits become one digit or a short group repeated (`0.4444…`, `0101…`, `1234512345…`). */
const digitRun: RunawayShape = {
  name: "digit runs (one digit, or a group of digits, repeated)",
  generate: (seed, loopChars = 12_000) => {
    const r = rng(seed)
    const lead = pick(r, ["The value is 0.", "So x = ", "Result: 3.", "", "The answer is 1", "= 0x", "checksum "])
    const prefix = prefixOf(r) + lead
    const digits = r() < 0.5 ? "0123456789" : "01"
    const group = Array.from({ length: between(r, 1, 12) }, () => digits[Math.floor(r() * digits.length)]!).join("")
    // The digits before the run settles: a few random ones (3.14159…), then the group.
    const head = Array.from({ length: between(r, 0, 8) }, () => "0123456789"[Math.floor(r() * 10)]!).join("")
    return grow(prefix, loopChars, (i) => (i === 0 ? head + group : group))
  }
}

/** Thousands of spaces, line breaks or tabs (or a mix of them). */
const whitespaceFlood: RunawayShape = {
  name: "whitespace floods (spaces, line breaks, tabs, mixed)",
  generate: (seed, loopChars = 12_000) => {
    const r = rng(seed)
    const prefix = prefixOf(r) + pick(r, ["", "\n", "```\n", "    "])
    const unit = pick(r, [" ", "\n", "\t", "\r\n", " \n", "\t\n", "mixed"])
    return grow(prefix, loopChars, () => (unit === "mixed" ? pick(r, [" ", "\n", "\t", "  "]) : unit))
  }
}

export const RUNAWAY_SHAPES: ReadonlyArray<RunawayShape> = [
  restartOpeners,
  restartCutShort,
  irregularCounter,
  counterWithFixedNumber,
  hanAlternating,
  hanRotating,
  digitRun,
  whitespaceFlood
]
