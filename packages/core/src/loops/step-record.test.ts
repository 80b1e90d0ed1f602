import { describe, expect, test } from "bun:test"
import fc from "fast-check"
import type { AssistantMessage, ToolPart } from "../model/message.js"
import { call, reply, user } from "./fixtures.js"
import { collapsedHead, failureIsAnswer, isWritingCommand, replyChangedFiles, maskObservation, StepRecordLog, stepRecordOf, stepRecords } from "./step-record.js"
import { saysNo } from "./masks.js"

const withResult = (m: AssistantMessage, result: Partial<ToolPart>): AssistantMessage => ({
  ...m,
  parts: m.parts.map((p) => (p.type === "tool" ? ({ ...p, ...result } as ToolPart) : p))
})

describe("maskObservation", () => {
  test("quoted strings, hex ids, paths and numbers are masked; the rest stays", () => {
    expect(maskObservation('No matches found for "foo" in /src/app')).toBe(maskObservation("No matches found for \"bar_baz\" in /lib/x/y.py"))
    expect(maskObservation("commit 3f9a2c1d7e merged")).toBe(maskObservation("commit 0b1c2d3e4f5a merged"))
    expect(maskObservation("42 passed in 1.37s")).toBe(maskObservation("7 passed in 12.0s"))
    expect(maskObservation("42 passed")).not.toBe(maskObservation("42 failed"))
    expect(maskObservation("  a\n\n b ")).toBe("a b")
  })
})

describe("collapsedHead", () => {
  // It reads a head of the text when that is enough; the answer is the whole text's.
  test("is the head of the whole text collapsed and trimmed, however its whitespace falls", () => {
    // A head that ends in a space the whole text trims away (only whitespace after it).
    expect(collapsedHead(`${"a".repeat(63)}${" ".repeat(101)}`, 64)).toBe("a".repeat(63))
    const piece = fc.constantFrom("a", "word", " ", "  ", "\n", "\t\n ", "xyz.", " ".repeat(70))
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 120 }), fc.integer({ min: 0, max: 40 }), (pieces, chars) => {
        const text = pieces.join("")
        expect(collapsedHead(text, chars)).toBe(text.replace(/\s+/g, " ").trim().slice(0, chars))
      }),
      { numRuns: 500 }
    )
  })
})

describe("isWritingCommand", () => {
  test("writing only a command's own output to a log is no change: a new log name each time does not make a repeat new", () => {
    const cases: ReadonlyArray<readonly [string, boolean]> = [
      ["python manage.py migrate --database primary 2>&1 | tee /tmp/mig-4f2a.log", false],
      ["python manage.py migrate 2>&1 | tee migrate-3.log", false],
      ["npm test > /tmp/test.out 2>&1", false],
      ["make build > build.log", false],
      ["python gen.py > src/generated.py", true],
      ["echo x | tee src/a.py", true],
      ["sed -i s/a/b/ f.py | tee /tmp/x.log", true],
      ["cp a b > /tmp/copy.log", true],
      ["tee -a notes.md", true]
    ]
    for (const [command, writes] of cases) expect([command, isWritingCommand(command)]).toEqual([command, writes])
  })
  test("shell writes count as file changes; reads and /dev/null redirects do not", () => {
    for (const c of ["sed -i 's/a/b/' f.py", "echo x > out.txt", "cat a >> b", "tee log.txt", "cp a b", "git apply p.diff", "python3 -c \"open('f','w').write('x')\""]) {
      expect([c, isWritingCommand(c)]).toEqual([c, true])
    }
    for (const c of ["cat a.py", "grep -rn foo .", "ls 2>&1", "make 2>/dev/null", "python3 run.py > /dev/null", "git diff", "sed -n 1,5p a.py"]) {
      expect([c, isWritingCommand(c)]).toEqual([c, false])
    }
  })
})

describe("stepRecordOf / stepRecords", () => {
  test("an edit that completed with a diff is a change; the same edit rejected is not", () => {
    const edit = call("a1", "edit", { path: "a.py", text: "x" })
    expect(stepRecordOf(withResult(edit, { path: "a.py", diff: "@@ -1 +1 @@\n-a\n+x" })).changed).toBe(true)
    expect(stepRecordOf(withResult(edit, { path: "a.py", diff: "@@ -1 +1 @@\n-a\n+x", state: "error" })).changed).toBe(false)
  })

  test("a failing writing command is not a change; a step without tools has an empty action", () => {
    const write = call("a1", "bash", { command: "echo x > out.txt" })
    expect(stepRecordOf(write).changed).toBe(true)
    expect(stepRecordOf(withResult(write, { exitCode: 1 })).changed).toBe(false)
    const records = stepRecords([user("u0"), write, reply({ id: "a2", text: "done" })])
    expect(records.map((r) => r.action === "")).toEqual([false, true])
  })

  test("a git command that failed after making a commit moved the tree (a rebase stopped at its next conflict); one that made none did not", () => {
    const cont = call("a1", "bash", { command: "GIT_EDITOR=true git rebase --continue" })
    const stoppedAtNext = "[detached HEAD e3fcc2c] search: client\nAuto-merging package-lock.json\nCONFLICT (content): Merge conflict in package-lock.json\nerror: could not apply 1d35125... search: index products"
    expect(stepRecordOf(withResult(cont, { exitCode: 1, output: stoppedAtNext })).changed).toBe(true)
    expect(stepRecordOf(withResult(cont, { exitCode: 1, output: "error: you must edit all merge conflicts and then\nmark them as resolved using git add" })).changed).toBe(false)
    // The same line printed by something other than git is no commit.
    expect(stepRecordOf(withResult(call("a2", "bash", { command: "cat notes.txt" }), { exitCode: 1, output: "[main 1a2b3c4] fix" })).changed).toBe(false)
  })

  test("the action folds whitespace in the arguments", () => {
    expect(stepRecordOf(call("a", "bash", { command: "ls   -la" })).action).toBe(stepRecordOf(call("b", "bash", { command: "ls -la" })).action)
  })
})

describe("StepRecordLog", () => {
  test("holds the records stepRecords gives: bookkeeping steps (think, todo lists) left out, pops and resets alike", () => {
    const think = call("a2", "think", { thought: "hmm" })
    const todo = call("a4", "TodoWrite", { todos: [] })
    const session = [user("u0"), call("a1", "bash", { command: "ls" }), think, call("a3", "bash", { command: "make" }), todo]
    const log = new StepRecordLog()
    session.forEach((m, i) => {
      log.push(m)
      expect(log.records).toEqual(stepRecords(session.slice(0, i + 1)))
    })
    // The newest message made no record: nothing to take back, and the records stay.
    expect(log.popIf(todo)).toBe(false)
    expect(log.records).toEqual(stepRecords(session))
    log.reset(session.slice(0, 3))
    expect(log.records).toEqual(stepRecords(session.slice(0, 3)))
    expect(log.records.map((r) => r.role)).toEqual(["shell"])
  })
})

describe("poll", () => {
  test("a read of a background job's output (BashOutput, TaskOutput, an empty write_stdin) is a look at a running job, alone or with a poll command", () => {
    const poll = (...calls: Array<[string, unknown]>) => stepRecordOf(reply({ id: "p", tools: calls })).poll
    expect(poll(["BashOutput", { bash_id: "bash_1" }])).toBe(true)
    expect(poll(["TaskOutput", { task_id: "t1" }])).toBe(true)
    expect(poll(["write_stdin", { session_id: 3, chars: "" }])).toBe(true)
    expect(poll(["write_stdin", { session_id: 3, chars: "y\n" }])).toBe(false)
    expect(poll(["bash", { command: "sleep 45" }], ["BashOutput", { bash_id: "bash_1" }])).toBe(true)
    expect(poll(["bash", { command: "npm test" }], ["BashOutput", { bash_id: "bash_1" }])).toBe(false)
    expect(poll(["Read", { file_path: "train.log" }])).toBe(false)
  })
})

describe("failureIsAnswer", () => {
  const shell = (command: string): ToolPart => ({ type: "tool", callId: "c", name: "bash", input: { command }, state: "completed", output: "curl: (7) Failed to connect", exitCode: 7 })
  test("a poll that sleeps before it looks says the job is not ready yet; the same look without a wait is a failure", () => {
    expect(failureIsAnswer(shell("sleep 3 && curl -s localhost:3000/health"))).toBe(true)
    expect(failureIsAnswer(shell("curl -s localhost:3000/health"))).toBe(false)
    expect(failureIsAnswer(shell("sleep 3 && curl -X POST localhost:3000/jobs"))).toBe(false)
  })
})

describe("saysNo", () => {
  test("refusals, errors and nothing found say no, whatever the exit status; plain answers and clean reports do not", () => {
    for (const no of ["Wrong answer", "incorrect password", "Traceback (most recent call last):", "service: not ready", '{"error":"forbidden"}', "No matches found", "0 rows", "503 Service Unavailable"]) expect([no, saysNo(no)]).toEqual([no, true])
    for (const yes of ["200", "ok", '{"status":"ok"}', "Found 0 errors.", "no problems", "1 file would be left unchanged.", "available: 3 nodes"]) expect([yes, saysNo(yes)]).toEqual([yes, false])
  })
})

describe("replyChangedFiles", () => {
  test("says what the step record says, for edits, writing commands, failures, reads and bookkeeping", () => {
    const replies = [
      withResult(call("e", "edit", { path: "a.ts", old: "x", new: "y" }), { state: "completed", diff: "-x\n+y", path: "a.ts" }),
      withResult(call("s", "bash", { command: "sed -i s/a/b/ f.py" }), { state: "completed", exitCode: 0, output: "" }),
      withResult(call("f", "bash", { command: "sed -i s/a/b/ f.py" }), { state: "completed", exitCode: 1, output: "no such file" }),
      withResult(call("r", "read", { path: "a.ts" }), { state: "completed", output: "contents" }),
      withResult(call("t", "todowrite", { todos: [] }), { state: "completed", output: "ok" })
    ]
    expect(replies.map(replyChangedFiles)).toEqual([true, true, false, false, false])
    expect(replies.map(replyChangedFiles)).toEqual(replies.map((m) => stepRecordOf(m).changed))
  })
})
