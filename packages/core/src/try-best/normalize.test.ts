import { describe, expect, test } from "bun:test"
import fc from "fast-check"
import { normalizeCommand, normalizeDiff, normalizeOutput, normalizePath } from "./normalize.js"

describe("normalizeCommand", () => {
  test("masks temp paths, long numbers and seeds; collapses whitespace", () => {
    expect(normalizeCommand("python  run.py /tmp/tmpab12/x.txt --seed 42   --n 1234567")).toBe(
      "python run.py <TMP> <SEED> --n <NUM>"
    )
    expect(normalizeCommand("node a.js --seed=77 /private/tmp/q")).toBe("node a.js <SEED> <TMP>")
  })
  test("keeps short numbers and non-temp paths that merely contain /tmp/", () => {
    expect(normalizeCommand("head -n 12345 /home/me/tmp/file")).toBe("head -n 12345 /home/me/tmp/file")
  })
  test("two runs differing only in volatile parts compare equal", () => {
    expect(normalizeCommand("pytest --seed 1 /tmp/a")).toBe(normalizeCommand("pytest  --seed 999 /tmp/b"))
  })
})

describe("normalizeOutput", () => {
  test("masks durations in their common spellings", () => {
    expect(normalizeOutput("ran in 1.23s, 45ms, 0.5 seconds, 2 min")).toBe("ran in <TIME>, <TIME>, <TIME>, <TIME>")
  })
  test("masks temp paths, long numbers, addresses, clock times and ANSI colours", () => {
    expect(normalizeOutput("\u001b[31mFAIL\u001b[0m /tmp/x1/y at 0x7f3a2b1c9d00 12:01:02 id 99887766")).toBe(
      "FAIL <TMP> at <ADDR> <CLOCK> id <NUM>"
    )
  })
  test("keeps counts that are real results", () => {
    expect(normalizeOutput("3 failed, 12 passed")).toBe("3 failed, 12 passed")
  })
  test("keeps head and tail past the limit, at exactly the limit length", () => {
    const long = `HEAD ${"x ".repeat(3000)} TAIL`
    const out = normalizeOutput(long, 2000)
    expect(out.length).toBe(2000)
    expect(out.startsWith("HEAD ")).toBe(true)
    expect(out.endsWith(" TAIL")).toBe(true)
  })
  test("is at most `limit` long for any input", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 5000 }), fc.integer({ min: 10, max: 3000 }), (s, limit) => {
        expect(normalizeOutput(s, limit).length).toBeLessThanOrEqual(limit)
      })
    )
  })
})

describe("normalizeDiff", () => {
  test("keeps only added and removed lines, without headers, hunks or context", () => {
    const diff = [
      "diff --git a/src/a.ts b/src/a.ts",
      "--- a/src/a.ts",
      "+++ b/src/a.ts",
      "@@ -1,3 +1,3 @@",
      " const unchanged = 1",
      "-const   x =    1",
      "+const x = 2",
      "+}",
      "-  ",
      "\\ No newline at end of file"
    ].join("\n")
    expect(normalizeDiff(diff)).toBe("- const x = 1 + const x = 2")
  })
  test("drops lines of two characters or fewer", () => {
    expect(normalizeDiff("+ab\n+abc\n-})\n-});")).toBe("+ abc - });")
  })
  test("a removed line that starts with -- is kept unless a +++ line follows it", () => {
    expect(normalizeDiff("--- comment in sql\n+select 1")).toBe("- -- comment in sql + select 1")
  })
  test("CRLF diffs normalize like LF diffs", () => {
    expect(normalizeDiff("+hello world\r\n-bye world\r\n")).toBe(normalizeDiff("+hello world\n-bye world\n"))
  })
})

describe("normalizePath", () => {
  test("one spelling per file", () => {
    expect(normalizePath("./src//a/../b.ts")).toBe("src/b.ts")
    expect(normalizePath("src\\win\\c.ts")).toBe("src/win/c.ts")
    expect(normalizePath("/repo/./x/../y")).toBe("/repo/y")
    expect(normalizePath("../up/z")).toBe("../up/z")
  })
})
