import { describe, expect, test } from "bun:test"
import { matchUselessResult } from "./useless-result.js"

describe("matchUselessResult", () => {
  test("unknown tool and tool errors, for any tool, leading whitespace and case ignored", () => {
    expect(matchUselessResult({ tool: "anything", output: "Unknown tool: foo" })?.rule).toBe("unknown-tool")
    expect(matchUselessResult({ tool: "bash", output: "  error executing tool bash: timeout" })?.rule).toBe("tool-error")
  })

  test("empty search results: blank, [], {}, empty organic/results, 'No results found'", () => {
    for (const output of ["", "  \n", "[]", "{}", `{"organic": [], "searchParameters": {"q": "x"}}`, `{"results": []}`, "No results found for 'x'."]) {
      expect(matchUselessResult({ tool: "google_search", output })?.rule).toBe("empty-search")
    }
  })

  test("non-empty search results and empty output of non-search tools are fine", () => {
    for (const [tool, output] of [
      ["google_search", `{"organic": [{"title": "a"}]}`],
      ["google_search", `{"organic": [], "results": [1]}`],
      ["google_search", `{"answer": "42"}`],
      ["web_search", "Results: 1. loopguard"],
      ["bash", ""],
      ["bash", "[]"],
      ["edit", "{}"]
    ] as const) {
      expect(matchUselessResult({ tool, output })).toBeNull()
    }
  })

  test("the rules are data", () => {
    const rules = [{ id: "quota", tools: ["*"], matcher: { type: "prefix", texts: ["Quota exceeded"] } } as const]
    expect(matchUselessResult({ tool: "x", output: "quota exceeded for today" }, rules)).toEqual({ rule: "quota", tool: "x" })
    expect(matchUselessResult({ tool: "x", output: "Unknown tool: y" }, rules)).toBeNull()
  })
})
