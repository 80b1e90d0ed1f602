import { describe, expect, test } from "bun:test"
import { globToRegExp, hasWildcard, matchGlob } from "./glob.js"

describe("matchGlob", () => {
  test("* stays within one segment", () => {
    expect(matchGlob("docs/*.md", "docs/a.md")).toBe(true)
    expect(matchGlob("docs/*.md", "docs/sub/a.md")).toBe(false)
    expect(matchGlob("*.md", "README.md")).toBe(true)
    expect(matchGlob("*.md", "docs/README.md")).toBe(false)
  })
  test("? is one character, not a slash", () => {
    expect(matchGlob("v?.txt", "v1.txt")).toBe(true)
    expect(matchGlob("v?.txt", "v10.txt")).toBe(false)
    expect(matchGlob("a?b", "a/b")).toBe(false)
  })
  test("**/ is any number of directories, including none", () => {
    expect(matchGlob("**/REPORT.md", "REPORT.md")).toBe(true)
    expect(matchGlob("**/REPORT.md", "a/b/REPORT.md")).toBe(true)
    expect(matchGlob("src/**/*.test.ts", "src/x.test.ts")).toBe(true)
    expect(matchGlob("src/**/*.test.ts", "src/a/b/x.test.ts")).toBe(true)
    expect(matchGlob("src/**/*.test.ts", "lib/x.test.ts")).toBe(false)
  })
  test("a trailing /** is everything below", () => {
    expect(matchGlob("dist/**", "dist/a/b.js")).toBe(true)
    expect(matchGlob("dist/**", "distx/a.js")).toBe(false)
  })
  test("other characters are literal; paths are normalized first", () => {
    expect(matchGlob("a+b(1).[ts]", "a+b(1).[ts]")).toBe(true)
    expect(matchGlob("a.ts", "aXts")).toBe(false)
    expect(matchGlob("./out/result.json", "out//result.json")).toBe(true)
  })
  test("hasWildcard and the compiled form", () => {
    expect(hasWildcard("a/*.md")).toBe(true)
    expect(hasWildcard("a/b.md")).toBe(false)
    expect(globToRegExp("a/*.md").source).toBe("^a\\/[^/]*\\.md$")
  })
})
