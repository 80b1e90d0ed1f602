import { describe, expect, test } from "bun:test"
import fc from "fast-check"
import { detectDuplicateQuery, executedCount, initDuplicateQueries, isDuplicate, queryFingerprint, recordExecuted, recordExecutedInPlace } from "./duplicate-query.js"

describe("queryFingerprint", () => {
  test("search tools use their query: other arguments, key order, spacing and case do not matter", () => {
    const a = queryFingerprint("google_search", { q: "  Effect   TS\n retry ", num: 10 })
    const b = queryFingerprint("google_search", { num: 3, Q: "effect ts retry" })
    expect(a).toBe(b)
    expect(a).not.toBe(queryFingerprint("google_search", { q: "effect ts schedule" }))
  })

  test("fetch/scrape tools use the url; scrape_and_extract_info uses url and what to extract", () => {
    expect(queryFingerprint("web_fetch", { url: "https://x.dev", format: "md" })).toBe(queryFingerprint("web_fetch", { url: "https://x.dev" }))
    const s1 = queryFingerprint("scrape_and_extract_info", { url: "u", info_to_extract: "price" })
    expect(s1).not.toBe(queryFingerprint("scrape_and_extract_info", { url: "u", info_to_extract: "author" }))
  })

  test("unlisted tools use all arguments as sorted-key JSON, strings folded at any depth", () => {
    expect(queryFingerprint("lookup", { b: { y: " A  B ", x: 1 }, a: [" Z "] })).toBe(queryFingerprint("lookup", { a: ["z"], b: { x: 1, y: "a b" } }))
    expect(queryFingerprint("lookup", { a: 1 })).not.toBe(queryFingerprint("lookup", { a: 2 }))
    expect(queryFingerprint("lookup", { a: 1 }, { unlistedTools: "none" })).toBeNull()
  })

  test("a rule whose keys are all absent falls back to every argument", () => {
    expect(queryFingerprint("google_search", { text: "x" })).not.toBe(queryFingerprint("google_search", { text: "y" }))
  })

  test("shell, code, edit and read tools are never deduplicated", () => {
    for (const tool of ["bash", "run_python_code", "edit", "read", "write_file", "apply_patch"]) expect(queryFingerprint(tool, { x: 1 })).toBeNull()
  })

  test("cycles, bigints and functions do not throw", () => {
    const cyclic: Record<string, unknown> = { a: 1n, f: () => 1 }
    cyclic["self"] = cyclic
    expect(typeof queryFingerprint("lookup", cyclic)).toBe("string")
  })
})

describe("duplicate-query record", () => {
  const search = (q: string, agent = "main") => ({ agent, tool: "google_search", arguments: { q } })

  test("a query counts as a duplicate only after it was executed", () => {
    let state = initDuplicateQueries()
    expect(isDuplicate(state, search("loop guard"))).toBe(false)
    // Checked again (e.g. the first attempt was rolled back for another reason): still new.
    expect(isDuplicate(state, search("loop guard"))).toBe(false)
    state = recordExecuted(state, search("loop guard"))
    expect(isDuplicate(state, search("Loop  Guard"))).toBe(true)
    expect(detectDuplicateQuery(state, search("LOOP GUARD"))).toMatchObject({ agent: "main", tool: "google_search", count: 1 })
  })

  test("counts accumulate; agents and tools have separate records", () => {
    let state = initDuplicateQueries()
    state = recordExecuted(recordExecuted(state, search("x")), search("x"))
    expect(executedCount(state, search("x"))).toBe(2)
    expect(isDuplicate(state, search("x", "researcher"))).toBe(false)
    expect(isDuplicate(state, { agent: "main", tool: "bing_search", arguments: { q: "x" } })).toBe(false)
  })

  test("never-deduplicated tools leave the state as it is", () => {
    const state = initDuplicateQueries()
    expect(recordExecuted(state, { agent: "main", tool: "bash", arguments: { command: "npm test" } })).toBe(state)
  })

  test("the state is plain JSON and survives a round trip", () => {
    const state = recordExecuted(initDuplicateQueries(), search("x"))
    const back = JSON.parse(JSON.stringify(state))
    expect(isDuplicate(back, search("x"))).toBe(true)
  })
})

describe("recordExecutedInPlace", () => {
  test("the same counts, and so the same duplicate verdicts, as recordExecuted over any run of calls", () => {
    const call = fc.record({ agent: fc.constantFrom("main", "sub"), tool: fc.constantFrom("search", "web_search", "bash", "Read"), arguments: fc.oneof(fc.record({ query: fc.constantFrom("a", " A ", "b") }), fc.record({ command: fc.constantFrom("ls", "ls  ") }), fc.constant("raw")) })
    fc.assert(
      fc.property(fc.array(call, { maxLength: 30 }), fc.constantFrom("all" as const, "none" as const), (calls, unlistedTools) => {
        const options = { unlistedTools }
        let copied = initDuplicateQueries()
        const owned = { counts: Object.create(null) as Record<string, number> }
        for (const c of calls) {
          expect(detectDuplicateQuery(owned, c, options)).toEqual(detectDuplicateQuery(copied, c, options))
          copied = recordExecuted(copied, c, options)
          recordExecutedInPlace(owned, c, options)
        }
        expect({ ...owned.counts }).toEqual({ ...copied.counts })
      }),
      { numRuns: 100 }
    )
  })
})
