import { describe, expect, test } from "bun:test"
import type { AssistantMessage, ToolPart } from "../model/message.js"
import { DEFAULT_ROLLBACK_GUARD_CONFIG as DEFAULT_CONFIG, RollbackGuard } from "./rollback-guard.js"

let n = 0
/** A finished reply with one call of `name` that answered `output`. */
const step = (name: string, input: Record<string, unknown>, output: string, extra: Partial<ToolPart> = {}): AssistantMessage => ({
  role: "assistant",
  id: `r${++n}`,
  parentId: "u",
  step: n,
  finish: "tool-calls",
  parts: [{ type: "tool", callId: `c${n}`, name, input, state: "completed", output, ...extra }]
})

const kinds = (guard: RollbackGuard, replies: ReadonlyArray<AssistantMessage>) => replies.map((r) => guard.afterStep(r)?.trigger.kind ?? null)

describe("RollbackGuard pops a reply only with evidence of a loop", () => {
  test("a query asked again is rereading; the third ask pops; a file change in between makes it new", () => {
    const search = () => step("search_dir", { argv: ["JsonSetter"] }, "Found 125 matches")
    expect(kinds(new RollbackGuard(DEFAULT_CONFIG, "main"), [search(), search(), search()])).toEqual([null, null, "duplicate-query"])
    const edit = step("edit", { path: "/a.java", text: "x" }, "[File: /a.java (3 lines total)]", { path: "/a.java", diff: "--- a/a.java\n+++ b/a.java\n@@ -1 +1 @@\n-y\n+x\n" })
    expect(kinds(new RollbackGuard(DEFAULT_CONFIG, "main"), [search(), search(), edit, search(), search()])).toEqual([null, null, null, null, null])
  })

  test("inside a loop episode the second ask already pops", () => {
    const search = () => step("search_dir", { argv: ["x"] }, "Found 1 match")
    expect(kinds(new RollbackGuard(DEFAULT_CONFIG, "main", () => true), [search(), search()])).toEqual([null, "duplicate-query"])
  })

  test("a new search that finds nothing is exploration; the same empty search asked again pops", () => {
    const guard = new RollbackGuard(DEFAULT_CONFIG, "main")
    const empty = (q: string) => step("search_dir", { argv: [q] }, "")
    expect(kinds(guard, [empty("a"), empty("b"), empty("c")])).toEqual([null, null, null])
    // Asked before: a duplicate of its own (the second ask of "a" is let run, its empty answer is the evidence).
    expect(kinds(guard, [empty("a")])).toEqual(["useless-result"])
  })

  test("a tool error needs no more evidence", () => {
    expect(kinds(new RollbackGuard(DEFAULT_CONFIG, "main"), [step("search", { q: "x" }, "Error executing tool search: timeout")])).toEqual(["useless-result"])
  })
})
