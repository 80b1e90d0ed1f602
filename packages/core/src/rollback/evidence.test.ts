import { describe, expect, test } from "bun:test"
import { duplicateWithEvidence, uselessWithEvidence } from "./evidence.js"
import type { RollbackTrigger } from "./triggers.js"

const duplicate = (count: number): RollbackTrigger => ({ kind: "duplicate-query", agent: "main", tool: "search", fingerprint: '{"q":"x"}', count })
const empty: RollbackTrigger = { kind: "useless-result", rule: "empty-search", tool: "search_dir" }

describe("rollback needs evidence of a loop", () => {
  test("a query asked a second time is rereading; the third time, or inside a loop episode, it pops", () => {
    expect(duplicateWithEvidence(duplicate(1), false)).toBeNull()
    expect(duplicateWithEvidence(duplicate(2), false)).toEqual(duplicate(2))
    expect(duplicateWithEvidence(duplicate(1), true)).toEqual(duplicate(1))
  })

  test("a search that found nothing pops only when the same query was asked before", () => {
    expect(uselessWithEvidence(empty, false)).toBeNull()
    expect(uselessWithEvidence(empty, true)).toEqual(empty)
  })

  test("broken replies need no more evidence: tool errors, leaks, refusals pass as they are", () => {
    const toolError: RollbackTrigger = { kind: "useless-result", rule: "tool-error", tool: "search" }
    const refusal: RollbackTrigger = { kind: "refusal", phrase: "I cannot", language: "en" }
    expect(uselessWithEvidence(toolError, false)).toEqual(toolError)
    expect(uselessWithEvidence(refusal, false)).toEqual(refusal)
    expect(duplicateWithEvidence(refusal, false)).toEqual(refusal)
    expect(duplicateWithEvidence(null, true)).toBeNull()
  })
})
