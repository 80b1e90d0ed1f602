import { describe, expect, test } from "bun:test"
import fc from "fast-check"
import { queryFingerprint } from "./duplicate-query.js"
import { detectFormatLeak } from "./format-leak.js"
import { detectRefusal } from "./refusal.js"
import { detectReplyTrigger } from "./triggers.js"
import { matchUselessResult } from "./useless-result.js"
import { DEFAULT_REFUSAL_PHRASES } from "./refusal-phrases.js"

const texty = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary" }),
  fc.array(fc.oneof(fc.constantFrom(...DEFAULT_REFUSAL_PHRASES.map((p) => p.phrase), "’", "“", " ", "\n", "<use_mcp_tool>", "{}", "[]"), fc.string({ maxLength: 6 }))).map((a) => a.join(""))
)

describe("rollback detectors never throw on model output", () => {
  test("reply, refusal, leak and useless-result detectors on arbitrary text", () => {
    fc.assert(
      fc.property(texty, fc.string(), (text, tool) => {
        detectRefusal(text)
        detectFormatLeak(text, 0)
        detectReplyTrigger({ text, toolCalls: 0 })
        matchUselessResult({ tool, output: text })
      }),
      { numRuns: 1500 }
    )
  })

  test("fingerprints on arbitrary arguments", () => {
    fc.assert(
      fc.property(fc.string(), fc.anything({ withBigInt: true, withMap: true, withSet: true, withDate: true }), (tool, args) => {
        const fp = queryFingerprint(tool, args)
        expect(fp === null || typeof fp === "string").toBe(true)
      }),
      { numRuns: 1500 }
    )
  })

  test("fingerprints do not depend on key order, spacing or case", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), fc.string({ maxLength: 12 })), (args) => {
        const shuffled = Object.fromEntries(Object.entries(args).reverse().map(([k, v]) => [k, `  ${v.toUpperCase()} `]))
        const plain = Object.fromEntries(Object.entries(args).map(([k, v]) => [k, v.toLowerCase()]))
        // Comparison on the folded form: toUpperCase/toLowerCase are not inverses for every character.
        const fold = (s: string) => s.normalize("NFKC").trim().replace(/\s+/g, " ").toLowerCase()
        const same = Object.entries(args).every(([, v]) => fold(v.toUpperCase()) === fold(v.toLowerCase()))
        fc.pre(same)
        expect(queryFingerprint("lookup", shuffled)).toBe(queryFingerprint("lookup", plain))
      }),
      { numRuns: 500 }
    )
  })

  test("a refusal phrase is found whatever its case and spacing, at the start of a reply", () => {
    fc.assert(
      fc.property(fc.constantFrom(...DEFAULT_REFUSAL_PHRASES), fc.boolean(), fc.integer({ min: 1, max: 3 }), (row, upper, spaces) => {
        const variant = row.phrase.replace(/ /g, " ".repeat(spaces)).replace(/'/g, "’")
        const text = `${upper ? variant.toUpperCase() : variant} ${"padding ".repeat(60)}`
        expect(detectRefusal(text)).not.toBeNull()
      }),
      { numRuns: 300 }
    )
  })
})
