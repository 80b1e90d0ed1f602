/** The verdict as a pure function of the history and the config. */
import type { AssistantMessage, Message } from "@loopguard/core/model"
import { DEFAULT_CONFIG } from "@loopguard/effect/config"
import { describe, expect, test } from "bun:test"
import { cutNotice, stopAnswer } from "./notices.js"
import { responsesProtocol } from "./protocols/responses.js"
import { TurnMemo } from "./turn-judge.js"
import { judgeRequest } from "./verdict.js"

const user = (at: number, text: string): Message => ({ role: "user", id: `m${at}`, text })
const call = (at: number, step: number): AssistantMessage => ({
  role: "assistant",
  id: `m${at}`,
  parentId: "m0",
  step,
  finish: "tool-calls",
  parts: [{ type: "tool", callId: `c${at}`, name: "bash", input: { command: "npm test" }, state: "completed", output: "1 failing", exitCode: 1 }]
})
const text = (at: number, step: number, words: string): AssistantMessage => ({ role: "assistant", id: `m${at}`, parentId: "m0", step, parts: [{ type: "text", text: words }] })
const repeated = (n: number): Array<Message> => [user(0, "fix the test"), ...Array.from({ length: n }, (_, i) => call(i + 1, i))]

describe("judgeRequest", () => {
  test("a healthy history passes untouched", () => {
    const v = judgeRequest([user(0, "hi"), text(1, 0, "Hello."), user(2, "thanks")], DEFAULT_CONFIG)
    expect(v).toEqual({ action: "pass", inserts: [], cropCuts: false, toolsOff: false, stop: null, incidents: [] })
  })

  test("the same failing call: a note or reminder from the 3rd on, a stop by the 8th, reminders kept in place", () => {
    expect(judgeRequest(repeated(2), DEFAULT_CONFIG).action).toBe("pass")
    const actions = [3, 4, 5, 6, 7, 8].map((n) => judgeRequest(repeated(n), DEFAULT_CONFIG).action)
    const firstStop = actions.indexOf("stop")
    expect(firstStop).toBeGreaterThan(0)
    expect(actions.slice(0, firstStop).every((a) => a === "note" || a === "remind")).toBe(true)
    const stop = judgeRequest(repeated(3 + firstStop), DEFAULT_CONFIG)
    expect(stop.stop?.loop).toContain("repeated-action")
    expect(stop.incidents.some((i) => i.action === "stop" || i.action === "hand-back")).toBe(true)
    // A reminder given after an earlier step keeps its place in the later requests.
    const later = judgeRequest(repeated(2 + firstStop), DEFAULT_CONFIG)
    expect(later.inserts.some((i) => i.before !== null && i.kind !== "note")).toBe(true)
  })

  test("an agent waiting on a server it started (health check refused, the startup log moving on): at most a note that it may wait, no breaker", () => {
    const step = (at: number, command: string, result: { state: "completed" | "error"; output?: string; error?: string; exitCode: number }): AssistantMessage => ({
      role: "assistant", id: `m${at}`, parentId: "m0", step: at - 1, finish: "tool-calls", parts: [{ type: "tool", callId: `c${at}`, name: "bash", input: { command }, ...result }]
    })
    const log = ["Starting app v1.4", "HikariPool-1 - Starting", "HikariPool-1 - Start completed", "Migrating schema to v12", "Flyway: applied 3 migrations", "Tomcat initialized on port 8080"]
    const history: Array<Message> = [user(0, "start the server and wait until /health answers")]
    for (let i = 0; i < 12; i++) {
      history.push(i % 2 === 0
        ? step(i + 1, "curl -sf http://127.0.0.1:8080/health", { state: "error", error: "curl: (7) Failed to connect", exitCode: 7 })
        : step(i + 1, "tail -n 3 app.log", { state: "completed", output: log[(i - 1) / 2]!, exitCode: 0 }))
      const v = judgeRequest(history, DEFAULT_CONFIG)
      expect([i + 1, v.action === "pass" || v.action === "note"]).toEqual([i + 1, true])
      expect(v.incidents.filter((x) => x.detector === "breaker")).toEqual([])
      for (const insert of v.inserts) expect(insert.text).not.toContain("not producing new results")
    }
  })

  test("the same history, the same verdict", () => {
    expect(judgeRequest(repeated(6), DEFAULT_CONFIG)).toEqual(judgeRequest(repeated(6), DEFAULT_CONFIG))
  })

  test("after a stop: stopped again without a new user message; a new user message starts afresh", () => {
    const stopped = [...repeated(8), text(9, 8, stopAnswer("a loop", "evidence", "next"))]
    expect(judgeRequest(stopped, DEFAULT_CONFIG).stop?.detector).toBe("stopped")
    expect(judgeRequest([...stopped, user(10, "stop and summarise")], DEFAULT_CONFIG).action).toBe("pass")
  })

  test("a stop in a later turn names its steps as the conversation numbers them, in the evidence and its runs alike", () => {
    const loop = (from: number, step: number, n: number) => Array.from({ length: n }, (_, i) => call(from + i, step + i))
    const later = [...repeated(2), user(3, "now make it pass"), ...loop(4, 2, 8)]
    const evidence = judgeRequest(later, DEFAULT_CONFIG).stop?.evidence ?? ""
    expect(evidence).toMatch(/^step 9: /)
    expect(evidence).toContain("(steps 2-9)")
  })

  test("a harness's canned reply to a stop starts the turn over once; the same words after the next stop do not", () => {
    const stop = (at: number, step: number) => text(at, step, stopAnswer("a loop", "evidence", "next"))
    const loop = (from: number, step: number, n: number) => Array.from({ length: n }, (_, i) => call(from + i, step + i))
    const first = [...repeated(8), stop(9, 8), user(10, "Please continue.")]
    expect(judgeRequest(first, DEFAULT_CONFIG).action).toBe("pass")
    // The loop comes back and is stopped again, as the first time.
    const again = [...first, ...loop(11, 9, 8)]
    expect(judgeRequest(again, DEFAULT_CONFIG).action).toBe("stop")
    expect(judgeRequest(again, DEFAULT_CONFIG).stop?.detector).not.toBe("stopped")
    // The harness answers the second stop with the same words (spacing and case aside): still stopped, without going upstream.
    const canned = [...again, stop(19, 17), user(20, "  please   continue. ")]
    const v = judgeRequest(canned, DEFAULT_CONFIG)
    expect([v.action, v.stop?.detector]).toEqual(["stop", "stopped"])
    expect(v.stop?.evidence).toContain("repeats")
    // And again after that answer; the agent coming back on its own is told the turn was stopped.
    const more = [...canned, stop(21, 18), user(22, "Please continue.")]
    expect(judgeRequest(more, DEFAULT_CONFIG).stop?.evidence).toContain("repeats")
    expect(judgeRequest([...canned, stop(21, 18)], DEFAULT_CONFIG).stop?.evidence).toContain("no new user message")
    // A person's new words start afresh, as after the first stop.
    expect(judgeRequest([...canned, stop(21, 18), user(22, "try reading the test file first")], DEFAULT_CONFIG).action).toBe("pass")
    // Words that followed no stop before do start a turn, however many stops came before.
    expect(judgeRequest([...again, stop(19, 17), user(20, "stop and summarise")], DEFAULT_CONFIG).action).toBe("pass")
  })

  test("a history past the stop without the proxy's stop answer in it (the proxy came in mid-turn, the agent dropped the answer) stays stopped while the loop goes on", () => {
    for (const n of [9, 10, 12, 20]) {
      const v = judgeRequest(repeated(n), DEFAULT_CONFIG)
      // Which detector's stop it is may change as the loop goes on (the error-storm breaker's, later).
      expect([n, v.action, v.stop !== null]).toEqual([n, "stop", true])
    }
    // Fed one request at a time through a process's memo, the same verdicts.
    const memo = { memo: new TurnMemo(), session: "s" }
    expect([8, 9, 10, 11].map((n) => judgeRequest(repeated(n), DEFAULT_CONFIG, memo).action)).toEqual(["stop", "stop", "stop", "stop"])
    expect(judgeRequest([...repeated(12), user(13, "try another way")], DEFAULT_CONFIG).action).toBe("pass")
  })

  test("a history that left its loop after the stop (a session resumed from its log) is not stopped: three new steps in a row", () => {
    const fresh = (at: number, step: number, i: number): AssistantMessage => ({ ...call(at, step), parts: [{ type: "tool", callId: `c${at}`, name: "bash", input: { command: `cat src/f${i}.c` }, state: "completed", output: `int f${i}() {}`, exitCode: 0 }] })
    const after = (n: number) => [...repeated(8), text(9, 8, "Running the tests again will not help; reading the sources."), ...Array.from({ length: n }, (_, i) => fresh(10 + i, 9 + i, i))]
    expect([1, 2, 3, 4, 20].map((n) => judgeRequest(after(n), DEFAULT_CONFIG).stop !== null)).toEqual([true, true, false, false, false])
    // Back to the looping call in between: the count of new steps starts again.
    const back = [...after(2), call(12, 11), fresh(13, 12, 7), fresh(14, 13, 8)]
    expect(judgeRequest(back, DEFAULT_CONFIG).action).toBe("stop")
    // A varied retry of the same command shape is no way out of it either.
    const varied = (at: number, step: number, i: number): AssistantMessage => ({ ...call(at, step), parts: [{ type: "tool", callId: `c${at}`, name: "bash", input: { command: `npm test -- --seed ${i}` }, state: "completed", output: "1 failing", exitCode: 1 }] })
    expect(judgeRequest([...repeated(8), ...[0, 1, 2, 3].map((i) => varied(9 + i, 8 + i, i))], DEFAULT_CONFIG).action).toBe("stop")
  })

  test("a harness that answers the same reply with \"Please continue.\" each time does not start the turn over: the text loop is stopped", () => {
    const same = "I have reviewed the parser module. Next I will refactor the tokenizer to use a state machine."
    const history: Array<Message> = [user(0, "Refactor the parser.")]
    const actions: Array<string> = []
    for (let i = 0; i < 14; i++) {
      history.push(text(history.length, i, same), user(history.length + 1, "Please continue."))
      actions.push(judgeRequest(history, DEFAULT_CONFIG).action)
    }
    expect(actions).toContain("stop")
    expect(actions.indexOf("stop")).toBeGreaterThan(actions.indexOf("remind"))
  })

  test("cuts: REMIND, REPLAN, then a stop; cropped every time", () => {
    const cut = (at: number, step: number) => text(at, step, `word word word${cutNotice("a block")}`)
    const one = [user(0, "write"), cut(1, 0), user(2, "continue")]
    expect(judgeRequest(one, DEFAULT_CONFIG).inserts.map((i) => i.kind)).toEqual(["text-repeat-remind"])
    expect(judgeRequest(one, DEFAULT_CONFIG).cropCuts).toBe(true)
    const two = [...one, cut(3, 1), user(4, "continue")]
    expect(judgeRequest(two, DEFAULT_CONFIG).inserts.map((i) => [i.kind, i.before])).toEqual([["text-repeat-remind", 3], ["text-repeat-replan", null]])
    const three = [...two, cut(5, 2), user(6, "continue")]
    expect(judgeRequest(three, DEFAULT_CONFIG).stop?.detector).toBe("text-repeat")
  })

  test("cuts answered each time by a person's new words: reminded, cropped, never stopped", () => {
    const cut = (at: number, step: number) => text(at, step, `case case case${cutNotice("a block")}`)
    const history: Array<Message> = [user(0, "write cases 0..149")]
    for (let i = 0; i < 5; i++) {
      history.push(cut(history.length, i), user(history.length + 1, `now cases ${150 * (i + 1)}..${150 * (i + 2) - 1}`))
      const v = judgeRequest(history, DEFAULT_CONFIG)
      expect([v.stop, v.cropCuts, v.inserts.at(-1)?.kind]).toEqual([null, true, "text-repeat-remind"])
    }
  })

  test("proxy.maxTurnSteps: the last allowed step goes up with tools off and the cap's notice; past it, a stop; a new user message counts afresh", () => {
    const config = { ...DEFAULT_CONFIG, proxy: { ...DEFAULT_CONFIG.proxy, maxTurnSteps: 4 } }
    const distinct = (at: number, step: number): AssistantMessage => ({ ...call(at, step), parts: [{ type: "tool", callId: `c${at}`, name: "bash", input: { command: `ls dir${at}` }, state: "completed", output: `file${at}`, exitCode: 0 }] })
    const turn = (steps: number) => [user(0, "look around"), ...Array.from({ length: steps }, (_, i) => distinct(i + 1, i))]
    expect([0, 1, 2].map((n) => judgeRequest(turn(n), config)).map((v) => [v.action, v.toolsOff])).toEqual([["pass", false], ["pass", false], ["pass", false]])
    const last = judgeRequest(turn(3), config)
    expect([last.action, last.toolsOff, last.stop]).toEqual(["remind", true, null])
    expect(last.inserts.map((i) => [i.kind, i.before])).toEqual([["step-cap", null]])
    expect(last.inserts[0]!.text).toContain("step 4 of 4")
    const past = judgeRequest(turn(4), config)
    expect([past.action, past.toolsOff, past.stop?.detector]).toEqual(["stop", false, "step-cap"])
    expect(past.stop?.loop).toContain("4 of 4 steps used")
    expect(past.incidents).toEqual([{ step: 4, detector: "step-cap", action: "stop", kind: "fault", detail: { reason: "max_steps", used: "the step cap (4 of 4 steps used)" } }])
    expect(judgeRequest([...turn(4), user(5, "go on")], config).action).toBe("pass")
    // Off by default: the same long turn passes.
    expect(judgeRequest(turn(12), DEFAULT_CONFIG).action).toBe("pass")
  })

  test("a doom loop in one reply brings a reminder", () => {
    const same = { type: "tool" as const, name: "read", input: { path: "a" }, state: "completed" as const, output: "x" }
    const reply: AssistantMessage = { role: "assistant", id: "m1", parentId: "m0", step: 0, parts: [1, 2, 3].map((i) => ({ ...same, callId: `c${i}` })) }
    const v = judgeRequest([user(0, "read"), reply], DEFAULT_CONFIG)
    expect(v.inserts.map((i) => i.kind)).toContain("doom-loop")
    expect(v.incidents.map((i) => i.detector)).toContain("doom-loop")
  })
})

test("Codex's exec results, the same call each time under a fresh random label, are one repeated action: stopped by the 8th", () => {
  const label = (i: number) => (0x5f1305 + i * 0x1a2b3).toString(16).slice(0, 6)
  const step = (i: number) => [
    { type: "function_call", call_id: `c${i}`, name: "exec_command", arguments: '{"cmd":"echo x >> marker.txt"}' },
    { type: "function_call_output", call_id: `c${i}`, output: `Chunk ID: ${label(i)}\nWall time: 0.00${i} seconds\nProcess exited with code 0\nOriginal token count: 0\nOutput:\n` }
  ]
  const body = (n: number) => ({ model: "m", input: [{ type: "message", role: "user", content: "append x" }, ...Array.from({ length: n }, (_, i) => step(i)).flat()] })
  const actions = [3, 4, 5, 6, 7, 8].map((n) => judgeRequest(responsesProtocol.conversation(body(n)).messages, DEFAULT_CONFIG).action)
  expect(actions).toContain("stop")
})
