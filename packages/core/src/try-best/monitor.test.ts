import { describe, expect, test } from "bun:test"
import type { ToolPart } from "../model/message.js"
import { pauseNotice, type TryBestIncident } from "./incident.js"
import { TryBestMonitor, initTryBest } from "./monitor.js"
import type { TryBestOptions } from "./options.js"
import { bashPart, editPart, readPart, toolPart } from "./tool-part.fixture.js"

/** Feeds parts one per step; returns the incidents (null where none). */
const run = (monitor: TryBestMonitor, parts: ReadonlyArray<ToolPart>): Array<TryBestIncident | null> =>
  parts.map((part, step) => monitor.consume({ part, step }))

const kinds = (incidents: ReadonlyArray<TryBestIncident | null>): Array<string | null> => incidents.map((i) => i?.kind ?? null)

// Seven words → five shingles; six words → four of those five: Jaccard exactly 4/5.
const FIVE_SHINGLES = "alpha beta gamma delta epsilon zeta"
const FOUR_OF_THEM = "alpha beta gamma delta epsilon"

/** Isolate one rule by pushing the others' thresholds out of reach. */
const only = (rule: "edit" | "bash" | "streak", extra: Partial<TryBestOptions> = {}): TryBestMonitor =>
  new TryBestMonitor({
    ...(rule !== "edit" ? { editMatches: 1000 } : {}),
    ...(rule !== "bash" ? { failedCommandRetries: 1000 } : {}),
    ...(rule !== "streak" ? { actionStreak: 1000 } : {}),
    ...extra
  })

describe("edit_repeat", () => {
  test("the third near-identical edit of one path fires, with count = matches + 1", () => {
    const m = only("edit")
    const result = run(m, [editPart("src/a.ts", "x = compute(1, 2, 3)"), editPart("src/a.ts", "x = compute(1, 2, 3)"), editPart("src/a.ts", "x = compute(1, 2, 3)")])
    expect(kinds(result)).toEqual([null, null, "edit_repeat"])
    const incident = result[2]!
    expect(incident.step).toBe(2)
    expect(incident.evidence).toMatchObject({ path: "src/a.ts", count: 3, similarity: 1, matchedSteps: [0, 1], tool: "edit" })
  })

  test("similarity exactly 0.8 is not a match (strictly greater)", () => {
    const m = only("edit")
    const result = run(m, [editPart("f.ts", FIVE_SHINGLES), editPart("f.ts", FIVE_SHINGLES), editPart("f.ts", FOUR_OF_THEM)])
    expect(kinds(result)).toEqual([null, null, null])
  })

  test("the same 0.8 pair matches once the threshold is below it", () => {
    const m = only("edit", { editSimilarity: 0.79 })
    const result = run(m, [editPart("f.ts", FIVE_SHINGLES), editPart("f.ts", FIVE_SHINGLES), editPart("f.ts", FOUR_OF_THEM)])
    expect(kinds(result)).toEqual([null, null, "edit_repeat"])
    expect(result[2]!.evidence).toMatchObject({ similarity: 0.8 })
  })

  test("only earlier edits of the same path are compared", () => {
    const m = only("edit")
    const result = run(m, [editPart("a.ts", "same change here"), editPart("b.ts", "same change here"), editPart("c.ts", "same change here")])
    expect(kinds(result)).toEqual([null, null, null])
  })

  test("the window is shared by all files: edits elsewhere push old edits of a path out", () => {
    const others = (n: number) => Array.from({ length: n }, (_, i) => editPart(`other${i}.ts`, `unrelated change number ${i}`))
    const repeat = () => editPart("f.ts", "the very same change")
    // 1 + 10 others + 1 = 12 edits: the first f.ts edit is still in the window of 12 at the third.
    expect(kinds(run(only("edit"), [repeat(), ...others(10), repeat(), repeat()])).at(-1)).toBe("edit_repeat")
    // One more edit elsewhere and the first f.ts edit has left the window.
    expect(kinds(run(only("edit"), [repeat(), ...others(11), repeat(), repeat()])).at(-1)).toBe(null)
  })

  test("diffs differing only in whitespace, headers and short lines are the same edit", () => {
    const a = toolPart("edit", {}, { path: "g.ts", diff: "--- a/g.ts\n+++ b/g.ts\n@@ -1 +1 @@\n-let   value = 1\n+let value = 2\n+}" })
    const b = toolPart("edit", {}, { path: "g.ts", diff: "@@ -9 +9 @@\n-let value = 1\n+let value   =  2" })
    const c = toolPart("edit", {}, { path: "./g.ts", diff: "-let value = 1\n+let value = 2\n+);" })
    expect(kinds(run(only("edit"), [a, b, c]))).toEqual([null, null, "edit_repeat"])
  })

  test("edits without a diff are compared through the diff derived from their input", () => {
    const e = () => toolPart("Edit", { file_path: "h.ts", old_string: "return a + b", new_string: "return a - b" })
    expect(kinds(run(only("edit"), [e(), e(), e()]))).toEqual([null, null, "edit_repeat"])
  })

  test("a refused edit changed nothing: it is no edit (the successful edit after refused attempts is no repeat)", () => {
    const refused = () => editPart("f.ts", "same old change", "", { state: "error", error: "No replacement was performed" })
    const m = only("edit")
    expect(kinds(run(m, [refused(), refused(), editPart("f.ts", "same old change")]))).toEqual([null, null, null])
    expect(m.state.edits).toHaveLength(1)
    // Two real edits before it: the third near-identical one is still a repeat.
    expect(kinds(run(only("edit"), [editPart("f.ts", "same old change"), refused(), editPart("f.ts", "same old change"), editPart("f.ts", "same old change")]))).toEqual([null, null, null, "edit_repeat"])
  })

  test("editMatches and editWindow are honoured", () => {
    const same = () => editPart("k.ts", "one two three four")
    expect(kinds(run(only("edit", { editMatches: 1 }), [same(), same()]))).toEqual([null, "edit_repeat"])
    expect(kinds(run(only("edit", { editWindow: 1 }), [same(), same(), same()]))).toEqual([null, null, null])
  })
})

describe("bash_retry", () => {
  test("a poll that sleeps is given its patience: a server coming up fails while it waits", () => {
    const waiting = Array.from({ length: 20 }, () => bashPart("sleep 3 && curl -s localhost:3000/health", 7, "curl: (7) Failed to connect to localhost port 3000"))
    const result = kinds(run(only("bash"), waiting))
    // Three seconds a look: twenty looks (one minute) before it counts, not three.
    expect(result.slice(0, 19).every((k) => k === null)).toBe(true)
    expect(result[19]).toBe("bash_retry")
    const noWait = Array.from({ length: 3 }, () => bashPart("curl -s localhost:3000/health", 7))
    expect(kinds(run(only("bash"), noWait))).toEqual([null, null, "bash_retry"])
  })

  test("a look that fails while the job it waits on moves (its log read between tries) starts its count again; not when the log stands still", () => {
    const health = () => bashPart("curl -sf http://localhost:8080/actuator/health", 7, "curl: (7) Failed to connect to localhost port 8080")
    const log = (line: string) => bashPart("tail -n 3 /tmp/api.log", 0, line)
    const moving = [health(), log("Starting ApiApplication"), health(), log("HikariPool-1 - Start completed."), health(), log("Migrating schema to version 57"), health(), log("Tomcat started on port 8080"), health()]
    expect(kinds(run(only("bash"), moving)).every((k) => k === null)).toBe(true)
    const still = [health(), log("Starting ApiApplication"), health(), log("Starting ApiApplication"), health()]
    expect(kinds(run(only("bash"), still)).at(-1)).toBe("bash_retry")
    // A command that does something (not a look) keeps its count.
    const build = () => bashPart("make deploy", 2, "make: *** [deploy] Error 2")
    expect(kinds(run(only("bash"), [build(), log("a"), build(), log("b"), build()])).at(-1)).toBe("bash_retry")
  })

  test("a command that waits by itself and answers something new each time is waiting; the same answer past its patience is a retry", () => {
    const rollout = (available: number) => bashPart("kubectl rollout status deploy/api --timeout=90s", 1, `Waiting for deployment "api" rollout to finish: ${available} of 3 updated replicas are available...\nerror: timed out waiting for the condition`)
    expect(kinds(run(only("bash"), [0, 0, 1, 1, 1, 2, 2, 2, 2].map(rollout))).every((k) => k === null)).toBe(true)
    // Ninety seconds a look: ten minutes of one answer is seven looks.
    expect(kinds(run(only("bash"), Array.from({ length: 7 }, () => rollout(1)))).at(-1)).toBe("bash_retry")
  })

  test("a CI watch cut by its timeout while more jobs finish each look is waiting; with no timeout given, the harness's cut counts the same", () => {
    const watch = (command: string, exit: number) => (done: number) => bashPart(command, exit, `Refreshing run status every 3 seconds. Press Ctrl+C to quit.\n✓ build in 2m\n${done} of 9 jobs completed\n* test (ubuntu) in progress`)
    const timed = watch("timeout 110 gh run watch 123456", 124)
    expect(kinds(run(only("bash"), [1, 3, 5, 6, 8].map(timed))).every((k) => k === null)).toBe(true)
    const cut = watch("gh run watch 123456", 143)
    expect(kinds(run(only("bash"), [1, 3, 5, 6, 8].map(cut))).every((k) => k === null)).toBe(true)
    // The same answer look after look is no wait: a retry.
    expect(kinds(run(only("bash"), Array.from({ length: 12 }, () => timed(4)))).some((k) => k === "bash_retry")).toBe(true)
  })

  test("three failures of one normalized command fire, even with other calls in between", () => {
    const m = only("bash")
    const result = run(m, [
      bashPart("python run.py /tmp/a1 --seed 1", 1),
      readPart("x.ts"),
      bashPart("ls", 0),
      bashPart("python  run.py /tmp/b2 --seed 2", 1),
      bashPart("grep foo", 1),
      bashPart("python run.py /tmp/c3 --seed=3", 2)
    ])
    expect(kinds(result)).toEqual([null, null, null, null, null, "bash_retry"])
    expect(result[5]!.evidence).toMatchObject({ command: "python run.py <TMP> <SEED>", count: 3, exitCode: 2, verification: false })
  })

  test("an error state is a failure; exit code 0 is not", () => {
    const errored = () => toolPart("bash", { command: "make deploy" }, { state: "error", error: "timed out" })
    expect(kinds(run(only("bash"), [errored(), errored(), errored()]))).toEqual([null, null, "bash_retry"])
    expect(kinds(run(only("bash"), [bashPart("make deploy", 0), bashPart("make deploy", 0), bashPart("make deploy", 0)]))).toEqual([null, null, null])
  })

  test("a shell command that writes files (a heredoc rewrite) clears the failure counts like an edit", () => {
    const rewrite = (i: number) => bashPart(`cat > solve.py << 'EOF'\nprint(${i})\nEOF`, 0)
    const result = run(only("bash"), [bashPart("python solve.py", 1), rewrite(1), bashPart("python solve.py", 1), rewrite(2), bashPart("python solve.py", 1)])
    expect(kinds(result)).toEqual([null, null, null, null, null])
    expect(kinds(run(only("bash"), [bashPart("python solve.py", 1), bashPart("cat solve.py", 0), bashPart("python solve.py", 1), bashPart("python solve.py", 1)])).at(-1)).toBe("bash_retry")
  })

  test("a successful edit clears every command's failure count", () => {
    const m = only("bash")
    const result = run(m, [
      bashPart("cmd-a", 1),
      bashPart("cmd-b", 1),
      bashPart("cmd-a", 1),
      bashPart("cmd-b", 1),
      editPart("src/x.ts", "a fix"),
      bashPart("cmd-a", 1),
      bashPart("cmd-b", 1)
    ])
    expect(kinds(result)).toEqual([null, null, null, null, null, null, null])
    expect(m.state.failures).toEqual({ "cmd-a": 1, "cmd-b": 1 })
  })

  test("a failed edit does not clear the counts", () => {
    const m = only("bash")
    const result = run(m, [bashPart("cmd-a", 1), bashPart("cmd-a", 1), editPart("x.ts", "nope", "", { state: "error" }), bashPart("cmd-a", 1)])
    expect(kinds(result).at(-1)).toBe("bash_retry")
  })

  test("a command's own success clears its count only", () => {
    const m = only("bash")
    const result = run(m, [
      bashPart("cmd-a", 1),
      bashPart("cmd-b", 1),
      bashPart("cmd-a", 1),
      bashPart("cmd-b", 1),
      bashPart("cmd-a", 0),
      bashPart("cmd-a", 1),
      bashPart("cmd-b", 1)
    ])
    expect(kinds(result)).toEqual([null, null, null, null, null, null, "bash_retry"])
    expect(m.state.failures["cmd-a"]).toBe(1)
  })

  test("a failing verification run whose output changed resets its count to 1", () => {
    const m = only("bash")
    const result = run(m, [
      bashPart("npm test", 1, "2 failed, 3 passed in 1.2s"),
      bashPart("npm test", 1, "2 failed, 3 passed in 0.9s"), // same once the duration is masked
      bashPart("npm test", 1, "1 failed, 4 passed in 1.0s"), // changed: progress
      bashPart("npm test", 1, "1 failed, 4 passed in 1.1s"),
      bashPart("npm test", 1, "1 failed, 4 passed in 1.3s")
    ])
    expect(kinds(result)).toEqual([null, null, null, null, "bash_retry"])
    expect(result[4]!.evidence).toMatchObject({ count: 3, verification: true })
  })

  test("changed output is not progress for a command that is not a verification run", () => {
    const result = run(only("bash"), [bashPart("curl api", 1, "error A"), bashPart("curl api", 1, "error B"), bashPart("curl api", 1, "error C")])
    expect(kinds(result).at(-1)).toBe("bash_retry")
  })

  test("'novel' output progress does not count a return to an earlier output as progress", () => {
    const outputs = ["FAIL a", "FAIL b", "FAIL a", "FAIL b"]
    const changed = run(only("bash"), outputs.map((o) => bashPart("pytest", 1, o)))
    expect(kinds(changed)).toEqual([null, null, null, null])
    const novel = run(only("bash", { outputProgress: "novel" }), outputs.map((o) => bashPart("pytest", 1, o)))
    expect(kinds(novel)).toEqual([null, null, null, "bash_retry"])
  })

  test("after a success, the next failure is compared with nothing (a regression is not progress)", () => {
    const m = only("streak", { actionStreak: 2 })
    const result = run(m, [bashPart("npm test", 1, "FAIL x"), bashPart("npm test", 0, "ok"), bashPart("npm test", 1, "FAIL y"), bashPart("npm test", 1, "FAIL y")])
    expect(kinds(result)).toEqual([null, null, null, "action_streak"])
  })

  test("failedCommandRetries is honoured; a command named __proto__ is just a command", () => {
    expect(kinds(run(only("bash", { failedCommandRetries: 2 }), [bashPart("__proto__", 1), bashPart("__proto__", 1)]))).toEqual([null, "bash_retry"])
  })
})

describe("action_streak", () => {
  test("four edits of four different files with no verification fire, and it keeps firing", () => {
    const m = only("streak")
    const result = run(m, ["a", "b", "c", "d", "e", "f"].map((f) => editPart(`${f}.ts`, `unrelated change to ${f}`)))
    expect(kinds(result)).toEqual([null, null, null, "action_streak", "action_streak", "action_streak"])
    expect(result[3]!.evidence).toMatchObject({ action: "edit", count: 4, path: "d.ts" })
    expect(result[5]!.evidence.count).toBe(6)
  })

  test("reads, searches and other commands neither count nor break the streak", () => {
    const m = only("streak")
    const result = run(m, [
      editPart("a.ts", "first change"),
      readPart("a.ts"),
      toolPart("grep", { pattern: "foo" }),
      bashPart("ls -la", 0),
      editPart("b.ts", "second change"),
      bashPart("cat b.ts", 1),
      editPart("c.ts", "third change"),
      toolPart("str_replace_editor", { command: "view", path: "c.ts" }),
      editPart("d.ts", "fourth change")
    ])
    expect(kinds(result)).toEqual([null, null, null, null, null, null, null, null, "action_streak"])
  })

  test("a verification run that succeeds resets the streak", () => {
    const m = only("streak")
    const edits = (n: number) => Array.from({ length: n }, (_, i) => editPart(`f${i}.ts`, `change number ${i}`))
    const result = run(m, [...edits(3), bashPart("npm test", 0, "ok"), ...edits(3)])
    expect(kinds(result).every((k) => k === null)).toBe(true)
  })

  test("a verification run whose output changed is progress", () => {
    const m = only("streak")
    const edits = (n: number) => Array.from({ length: n }, (_, i) => editPart(`f${i}.ts`, `change number ${i}`))
    const result = run(m, [bashPart("npm test", 1, "FAIL 3"), ...edits(3), bashPart("npm test", 1, "FAIL 2"), ...edits(3), bashPart("npm test", 1, "FAIL 1")])
    expect(kinds(result).every((k) => k === null)).toBe(true)
  })

  test("a no-progress verification run between edits starts a new streak of the other kind", () => {
    const m = only("streak")
    const result = run(m, [
      editPart("a.ts", "change a"),
      editPart("b.ts", "change b"),
      editPart("c.ts", "change c"),
      bashPart("npm test", 1, "FAIL same"),
      editPart("d.ts", "change d"),
      editPart("e.ts", "change e"),
      editPart("f.ts", "change f"),
      editPart("g.ts", "change g")
    ])
    expect(kinds(result)).toEqual([null, null, null, null, null, null, null, "action_streak"])
  })

  test("four verification runs in a row without progress fire as verify", () => {
    const m = only("streak")
    const result = run(m, [
      bashPart("npm test", 1, "FAIL"),
      bashPart("npx tsc", 1, "error TS1"),
      bashPart("npm run lint", 1, "lint error"),
      readPart("x.ts"),
      bashPart("npm test", 1, "FAIL"),
      bashPart("npx tsc", 1, "error TS1")
    ])
    expect(kinds(result)).toEqual([null, null, null, null, "action_streak", "action_streak"])
    expect(result[4]!.evidence).toMatchObject({ action: "verify", count: 4, command: "npm test" })
  })

  test("a refused edit is no edit: it neither counts nor breaks the streak", () => {
    const failed = (f: string) => editPart(`${f}.ts`, "x", "", { state: "error", error: "no match" })
    const ok = (f: string) => editPart(`${f}.ts`, `ok change of ${f}`)
    expect(kinds(run(only("streak"), [failed("a"), ok("b"), failed("c"), ok("d"), ok("e"), failed("f")]))).toEqual([null, null, null, null, null, null])
    expect(kinds(run(only("streak"), [ok("a"), failed("x"), ok("b"), ok("c"), ok("d")]))).toEqual([null, null, null, null, "action_streak"])
  })

  test("bash_retry wins when both fire on the same call", () => {
    const m = new TryBestMonitor({ actionStreak: 3, failedCommandRetries: 3 })
    const result = run(m, [bashPart("npm test", 1, "F"), bashPart("npm test", 1, "F"), bashPart("npm test", 1, "F")])
    expect(kinds(result)).toEqual([null, null, "bash_retry"])
    expect(m.state.streak).toEqual({ action: "verify", count: 3 })
  })
})

describe("what counts", () => {
  test("pending and running parts are ignored", () => {
    const m = only("streak", { actionStreak: 1 })
    expect(m.consume({ part: editPart("a.ts", "x y z", "", { state: "pending" }), step: 0 })).toBeNull()
    expect(m.consume({ part: editPart("a.ts", "x y z", "", { state: "running" }), step: 0 })).toBeNull()
    expect(m.state).toEqual(initTryBest())
  })

  test("edit and shell tools are data, matched case-insensitively", () => {
    const m = only("streak", { actionStreak: 2, editTools: ["Patch_File"], shellTools: ["terminal"], commandInputIsShell: false })
    expect(m.consume({ part: toolPart("patch_file", { path: "a", content: "x" }), step: 0 })).toBeNull()
    expect(m.consume({ part: toolPart("edit", { path: "b", content: "y" }), step: 1 })).toBeNull() // not an edit tool now
    expect(m.consume({ part: toolPart("PATCH_FILE", { path: "c", content: "z" }), step: 2 })?.kind).toBe("action_streak")
    const shell = only("bash", { shellTools: ["terminal"], commandInputIsShell: false })
    expect(kinds(run(shell, [0, 1, 2].map(() => toolPart("Terminal", { command: "false" }, { exitCode: 1 }))))).toEqual([null, null, "bash_retry"])
  })

  test("str_replace_editor edits only through create / str_replace / insert; view is not a shell call", () => {
    const m = only("streak", { actionStreak: 2 })
    expect(m.consume({ part: toolPart("str_replace_editor", { command: "view", path: "a.py" }), step: 0 })).toBeNull()
    expect(m.consume({ part: toolPart("str_replace_editor", { command: "undo_edit", path: "a.py" }), step: 1 })).toBeNull()
    expect(m.state).toEqual(initTryBest())
    m.consume({ part: toolPart("str_replace_editor", { command: "create", path: "a.py", file_text: "x = 1" }), step: 2 })
    expect(m.consume({ part: toolPart("str_replace_editor", { command: "insert", path: "a.py", new_str: "y = 2" }), step: 3 })?.kind).toBe("action_streak")
  })

  test("a tool with a string `command` input is shell-like unless configured otherwise", () => {
    const part = () => toolPart("run_tests", { command: "make check" }, { exitCode: 2 })
    expect(kinds(run(only("bash"), [part(), part(), part()]))).toEqual([null, null, "bash_retry"])
    expect(kinds(run(only("bash", { commandInputIsShell: false }), [part(), part(), part()]))).toEqual([null, null, null])
  })

  test("a shell tool given an argv array is understood", () => {
    const part = () => toolPart("local_shell", { command: ["bash", "-lc", "npm test"] }, { exitCode: 1, output: "F" })
    const result = run(only("bash"), [part(), part(), part()])
    expect(result[2]?.evidence).toMatchObject({ command: "bash -lc npm test", verification: true })
  })

  test("a part carrying a diff is an edit whatever its name (trace format), unless switched off", () => {
    const p = () => toolPart("custom_writer", {}, { path: "q.ts", diff: "+the same line again" })
    expect(kinds(run(only("edit"), [p(), p(), p()])).at(-1)).toBe("edit_repeat")
    expect(kinds(run(only("edit", { diffIsEdit: false }), [p(), p(), p()])).at(-1)).toBe(null)
  })

  test("reset() forgets everything", () => {
    const m = only("bash")
    run(m, [bashPart("x", 1), bashPart("x", 1), editPart("a.ts", "zzz")])
    m.reset()
    expect(m.state).toEqual(initTryBest())
  })

  test("the pause notice is the fixed pause text followed by the detail", () => {
    const incident = run(only("bash"), [bashPart("x", 1), bashPart("x", 1), bashPart("x", 1)])[2]!
    expect(pauseNotice(incident)).toBe(`Try-best loop detected; this turn was paused. ${incident.detail}`)
    expect(incident.detail).toContain("`x` has failed 3 times")
  })
})
