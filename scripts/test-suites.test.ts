import { describe, expect, test } from "bun:test"
import { Glob } from "bun"
import { readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { END_TO_END, splitSuites, testFiles } from "./test-suites.js"

const ROOT = resolve(import.meta.dir, "..")

describe("the quick and end-to-end suites", () => {
  const files = testFiles(ROOT)

  test("every test file is in exactly one suite", () => {
    const { quick, e2e } = splitSuites(files)
    expect(quick.filter((f) => e2e.includes(f))).toEqual([])
    expect([...quick, ...e2e].sort()).toEqual([...files])
  })

  test("the listing finds every test file of the packages, the test folder, the examples and the scripts", () => {
    const found = [...new Glob("{packages,test,examples,scripts}/**/*.test.ts").scanSync({ cwd: ROOT })].filter((f) => !f.includes("node_modules/"))
    expect(found.filter((f) => !files.includes(f))).toEqual([])
    expect(files).toContain("scripts/test-suites.test.ts")
  })

  test("every end-to-end entry names at least one test file and says why", () => {
    for (const entry of END_TO_END) {
      expect({ pattern: entry.pattern, matches: splitSuites(files, [entry]).e2e.length > 0 }).toEqual({ pattern: entry.pattern, matches: true })
      expect(entry.why.length).toBeGreaterThan(10)
    }
  })

  test("no quick test file starts the loopguard CLI as a process (those are end-to-end)", () => {
    const startsCli = (text: string) => /cli\/src\/main\.ts/.test(text) && /\b(spawn|spawnSync|execFile|execFileSync)\(/.test(text)
    expect(splitSuites(files).quick.filter((f) => startsCli(readFileSync(join(ROOT, f), "utf8")))).toEqual([])
  })

  test("a file matching an entry is end-to-end; the rest is quick", () => {
    const entries = [{ pattern: "test/agents*.test.ts", why: "real agent CLIs" }]
    expect(splitSuites(["test/agents.test.ts", "test/agents-codex.test.ts", "test/gates.test.ts"], entries)).toEqual({
      quick: ["test/gates.test.ts"],
      e2e: ["test/agents.test.ts", "test/agents-codex.test.ts"]
    })
  })
})
