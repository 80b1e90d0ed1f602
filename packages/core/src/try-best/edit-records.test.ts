import { describe, expect, test } from "bun:test"
import fc from "fast-check"
import { editRecords } from "./edit-records.js"
import { normalizeDiff } from "./normalize.js"
import { toolPart } from "./tool-part.fixture.js"

describe("editRecords", () => {
  test("uses the part's own diff and path", () => {
    const part = toolPart("edit", {}, { path: "./src/a.ts", diff: "--- a/src/a.ts\n+++ b/src/a.ts\n@@\n-old line\n+new line" })
    expect(editRecords(part)).toEqual([{ path: "src/a.ts", diff: "@@\n-old line\n+new line" }])
  })

  test("splits a multi-file diff into one record per file, paths from the +++ headers", () => {
    const diff = [
      "diff --git a/x.ts b/x.ts",
      "--- a/x.ts",
      "+++ b/x.ts",
      "+in x",
      "--- a/gone.ts",
      "+++ /dev/null",
      "-was in gone",
      "--- /dev/null",
      "+++ b/new.ts",
      "+in new"
    ].join("\n")
    const records = editRecords(toolPart("apply_patch", {}, { diff }))
    expect(records.map((r) => r.path)).toEqual(["x.ts", "gone.ts", "new.ts"])
    expect(records.map((r) => normalizeDiff(r.diff))).toEqual(["+ in x", "- was in gone", "+ in new"])
  })

  test("derives removed/added lines from old/new strings, leaving out shared context at both ends", () => {
    const part = toolPart("str_replace_editor", {
      command: "str_replace",
      path: "/repo/m.py",
      old_str: "def f():\n    return 1\n# end",
      new_str: "def f():\n    return 2\n# end"
    })
    expect(editRecords(part)).toEqual([{ path: "/repo/m.py", diff: "-    return 1\n+    return 2" }])
  })

  test("Claude-style old_string/new_string and multi-edit arrays", () => {
    expect(editRecords(toolPart("Edit", { file_path: "a.ts", old_string: "let a = 1", new_string: "let a = 2" }))).toEqual([
      { path: "a.ts", diff: "-let a = 1\n+let a = 2" }
    ])
    const multi = toolPart("MultiEdit", {
      file_path: "b.ts",
      edits: [
        { old_string: "one", new_string: "uno" },
        { old_string: "two", new_string: "dos" }
      ]
    })
    expect(editRecords(multi)).toEqual([{ path: "b.ts", diff: "-one\n+uno\n-two\n+dos" }])
  })

  test("whole content (write / create) and inserts are all added lines", () => {
    expect(editRecords(toolPart("write", { file_path: "w.txt", content: "l1\nl2" }))).toEqual([{ path: "w.txt", diff: "+l1\n+l2" }])
    expect(editRecords(toolPart("str_replace_editor", { command: "create", path: "c.py", file_text: "x = 1" }))).toEqual([
      { path: "c.py", diff: "+x = 1" }
    ])
    expect(editRecords(toolPart("str_replace_editor", { command: "insert", path: "i.py", insert_line: 3, new_str: "y = 2" }))).toEqual([
      { path: "i.py", diff: "+y = 2" }
    ])
  })

  test("patch text in the *** Update File format, one record per file", () => {
    const patch = [
      "*** Begin Patch",
      "*** Update File: src/p.ts",
      "@@ function p",
      "-  return 1",
      "+  return 2",
      "*** Add File: src/q.ts",
      "+export const q = 1",
      "*** End Patch"
    ].join("\n")
    expect(editRecords(toolPart("apply_patch", { input: patch }))).toEqual([
      { path: "src/p.ts", diff: "-  return 1\n+  return 2" },
      { path: "src/q.ts", diff: "+export const q = 1" }
    ])
    // A freeform tool whose whole input is the patch text.
    expect(editRecords(toolPart("apply_patch", patch)).map((r) => r.path)).toEqual(["src/p.ts", "src/q.ts"])
  })

  test("a unified diff given as input is split like a part's diff", () => {
    const patch = "--- a/u.ts\n+++ b/u.ts\n@@ -1 +1 @@\n-a line\n+b line"
    expect(editRecords(toolPart("apply_patch", { patch }))).toEqual([{ path: "u.ts", diff: "@@ -1 +1 @@\n-a line\n+b line" }])
  })

  test("an edit whose path cannot be known keeps an undefined path", () => {
    expect(editRecords(toolPart("edit", { old_string: "a", new_string: "b" }))).toEqual([{ path: undefined, diff: "-a\n+b" }])
  })

  test("nothing to derive gives no record", () => {
    expect(editRecords(toolPart("edit", { file_path: "z.ts" }))).toEqual([])
    expect(editRecords(toolPart("edit", null))).toEqual([])
    expect(editRecords(toolPart("edit", [1, 2]))).toEqual([])
  })

  test("never throws on any input", () => {
    fc.assert(
      fc.property(fc.anything(), fc.option(fc.string()), fc.option(fc.string()), (input, diff, path) => {
        const part = toolPart("edit", input, { ...(diff !== null ? { diff } : {}), ...(path !== null ? { path } : {}) })
        expect(Array.isArray(editRecords(part))).toBe(true)
      })
    )
  })
})
