import { describe, expect, test } from "bun:test"
import type { AssistantMessage, ToolPart } from "../model/message.js"
import { call, stepRecord } from "../loops/fixtures.js"
import { stepRecordOf } from "../loops/step-record.js"
import { answerOf, stepsOf, stopSentence } from "./stop-words.js"

const answered = (m: AssistantMessage, output: string): AssistantMessage => ({
  ...m,
  parts: m.parts.map((p) => (p.type === "tool" ? ({ ...p, state: "completed", output } as ToolPart) : p))
})

const run = (action: string, raw: string, steps: ReadonlyArray<number>) => steps.map((step) => stepRecord({ action, observation: raw, rawObservation: raw, step }))

describe("stop words name the evidence", () => {
  test("repeated action: the call, how often, the steps, the answer", () => {
    const records = [...run("ls", "a b", [10, 11]), ...run('bash({"command":"pytest tests/x.py"})', "F. FAILED tests/x.py::test_a - AssertionError: 3 != 4 1 failed", [12, 13, 14, 15, 16, 17, 18, 19])]
    expect(stopSentence("stopped", "repeated-action", { signature: 'bash({"command":"pytest tests/x.py"})', count: 8 }, records)).toBe(
      "stopped: `pytest tests/x.py` ran 8 times in a row (steps 12-19), the last answer `FAILED tests/x.py::test_a - AssertionError: 3 != 4 1 failed` (repeated-action, after a note and a reminder)"
    )
  })

  test("a command is quoted as the agent wrote it, not as calls are compared (`./ci.sh` and `ci.sh` are one call)", () => {
    const steps = [1, 2, 3].map((i) => stepRecordOf({ ...answered(call(`c${i}`, "bash", { command: "sleep 3  &&  ./ci-status.sh", description: "poll" }), "status: in_progress"), step: i }))
    expect(steps[0]!.action).toBe('bash({"command":"sleep 3 && ci-status.sh"})')
    const signature = steps[0]!.action
    expect(stopSentence("stopped", "repeated-action", { signature, count: 3 }, steps)).toStartWith("stopped: `sleep 3 && ./ci-status.sh` ran 3 times in a row (steps 1-3)")
    expect(stopSentence("stopped", "repeated-failure", { action: signature, count: 3 }, steps)).toStartWith("stopped: `sleep 3 && ./ci-status.sh` failed 3 times")
    expect(stopSentence("stopped", "failure-streak", { count: 3 }, steps)).toContain("the last `sleep 3 && ./ci-status.sh`")
    // A signature cut short in the detail still finds its step; a step of other tools is quoted as compared.
    expect(stopSentence("stopped", "repeated-action", { signature: `${signature.slice(0, 20)}…`, count: 3 }, steps)).toStartWith("stopped: `sleep 3 && ./ci-status.sh` ran 3 times")
    const cycle = ["./build.sh", "./run.sh --port 8080"].flatMap((command, k) => [1, 2].map((i) => stepRecordOf({ ...answered(call(`y${i}${k}`, "bash", { command }), "ok"), step: 2 * i + k })))
    expect(stopSentence("stopped", "action-cycle", { period: 2, replays: 2, cycle: [cycle[0]!.action, cycle[2]!.action] }, cycle)).toContain("the cycle `./build.sh` → `./run.sh --port 8080` went round")
    // A long command's action is cut in the detail: its runs are still found by it, and counted.
    const long = `pytest ${Array.from({ length: 30 }, (_, i) => `tests/test_${i}.py`).join(" ")}`
    const longSteps = [4, 6].map((i) => stepRecordOf({ ...answered(call(`l${i}`, "bash", { command: long }), "E ImportError: no module x"), step: i }))
    const cutAction = `${longSteps[0]!.action.slice(0, 119)}…`
    expect(stopSentence("stopped", "repeated-failure", { action: cutAction, count: 2 }, longSteps)).toContain("failed 2 times the same way (steps 4, 6): `ImportError: no module x`")
    const read = stepRecordOf(answered(call("r", "read_file", { path: "./a.ts" }), "x"))
    expect(read.written).toBeUndefined()
    expect(stopSentence("stopped", "repeated-action", { signature: read.action, count: 1 }, [read])).toStartWith('stopped: `read_file({"path":"a.ts"})` ran 1 times')
  })

  test("repeated failure and varied retry list the steps of their runs, with what lay between left out", () => {
    const records = [
      ...run("make", "error: missing header x.h", [3]),
      stepRecord({ action: "edit a.c", observation: "ok", step: 4 }),
      ...run("make", "error: missing header x.h", [5]),
      stepRecord({ action: "edit b.c", observation: "ok", step: 6 }),
      ...run("make", "error: missing header x.h", [7])
    ]
    expect(stopSentence("paused", "repeated-failure", { action: "make", count: 3, editedBetween: true }, records)).toBe(
      "paused: `make` failed 3 times the same way (steps 3, 5, 7), files edited between: `error: missing header x.h` (repeated-failure, after a note and a reminder)"
    )
    // The failure's own answer, not that of a step read after it (the log of the server that never came up).
    const thenLog = [...records, stepRecord({ action: "cat app.log", observation: "x", rawObservation: "ERROR Port 8080 already in use", step: 8 })]
    expect(stopSentence("stopped", "repeated-failure", { action: "make", count: 3 }, thenLog)).toContain("failed 3 times the same way (steps 3, 5, 7): `error: missing header x.h`")
    const guesses = ["admin", "root", "toor", "flag"].map((g, i) => stepRecord({ action: `unzip -P ${g} s.zip`, skeleton: "unzip -P <a> s.zip", observation: "x", rawObservation: "incorrect password", step: 20 + 2 * i }))
    expect(stopSentence("stopped", "varied-retry", { skeleton: "unzip -P <a> s.zip", count: 4 }, guesses)).toContain("`unzip -P <a> s.zip` was tried 4 times with new arguments (steps 20, 22, 24, 26), each time `incorrect password`")
  })

  test("the other detectors: observation, cycle, streak, replay, spin", () => {
    const records = run("curl localhost", "curl: (7) Failed to connect", [1, 2, 3, 4, 5])
    expect(stopSentence("stopped", "repeated-observation", { tool: "bash", count: 5 }, records)).toContain("5 steps in a row got the same answer from bash (steps 1-5)")
    expect(stopSentence("stopped", "action-cycle", { period: 2, replays: 2, cycle: ["cat a", "ls"] }, records)).toContain("the cycle `cat a` → `ls` went round again and again (steps 2-5)")
    const long = { period: 6, replays: 1, cycle: ["a", "b", "c", "d", "e", "f"].map((x) => `view({"path":"${x}"})`) }
    expect(stopSentence("stopped", "action-cycle", long, records)).toContain('`view({"path":"d"})` → … (6 calls) went round')
    expect(stopSentence("stopped", "failure-streak", { count: 5 }, records)).toContain("5 steps in a row failed (steps 1-5), the last `curl localhost`")
    expect(stopSentence("stopped", "replayed-sequence", { length: 3, distance: 7 }, records)).toContain("the last 3 steps (steps 3-5) replayed a stretch done 7 steps before")
    expect(stopSentence("stopped", "no-progress-spin", { window: 4, repeatedActions: 3 }, records)).toContain("no file changed in 4 steps (steps 2-5) and 3 of them repeated earlier actions")
    expect(stopSentence("stopped", "some-new-detector", { a: 1 }, records)).toBe("stopped: a=1 (some-new-detector, after a note and a reminder)")
  })

  test("answers and steps are quoted for one glance: the telling line, one line, backticks kept out", () => {
    expect(answerOf(stepRecord({ action: "x", observation: "", rawObservation: "" }))).toBe("nothing")
    expect(answerOf(stepRecord({ action: "x", observation: "", rawObservation: "collected 9 items ... E `x` TypeError: bad operand" }))).toBe("`TypeError: bad operand`")
    expect(answerOf(stepRecord({ action: "x", observation: "", rawObservation: "y".repeat(300) }))).toHaveLength(102)
    // Gemini CLI's report in its tags: the command's own words, not the process group or the closing tag.
    const gemini = stepRecordOf(answered(call("c7", "run_shell_command", { command: "cat /nonexistent-file" }), "<untrusted_context>\nOutput: cat: /nonexistent-file: No such file or directory\nExit Code: 1\nProcess Group PGID: 15785\n</untrusted_context>"))
    expect(answerOf(gemini)).toBe("`No such file or directory`")
    expect(stepsOf([])).toBe("no step")
    expect(stepsOf(run("a", "b", [4]))).toBe("step 4")
  })
})
