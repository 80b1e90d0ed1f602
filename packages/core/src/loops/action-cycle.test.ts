import { describe, expect, test } from "bun:test"
import type { Message } from "../model/message.js"
import { actionCycle } from "./action-cycle.js"
import { call, user } from "./fixtures.js"

const steps = (...cmds: ReadonlyArray<string>): Array<Message> => [user("u0"), ...cmds.map((c, i) => call(`a${i}`, "bash", { command: c }))]

describe("actionCycle", () => {
  test("A B A B A B: four replays of period 2 trigger, three do not", () => {
    expect(actionCycle(steps("A", "B", "A", "B", "A"))).toBeNull()
    expect(actionCycle(steps("A", "B", "A", "B", "A", "B"))).toMatchObject({ period: 2, replays: 4 })
  })
  test("a period-3 cycle", () => {
    expect(actionCycle(steps("ls", "cat a", "make", "ls", "cat a", "make", "ls"))).toMatchObject({ period: 3, replays: 4 })
  })
  test("A A A A is repeated action, not a cycle", () => {
    expect(actionCycle(steps("A", "A", "A", "A", "A", "A"))).toBeNull()
  })
  test("different actions never trigger", () => {
    expect(actionCycle(steps("a", "b", "c", "d", "e", "f", "g", "h"))).toBeNull()
  })
  test("a step without a tool call ends the collection", () => {
    const ms = steps("A", "B", "A")
    ms.push({ role: "assistant", id: "t", parentId: "u0", step: 9, parts: [{ type: "text", text: "thinking" }], finish: "stop" })
    ms.push(...steps("B", "A", "B").slice(1))
    expect(actionCycle(ms)).toBeNull()
  })
  test("a successful edit in the cycle is progress", () => {
    const ms = steps("A", "B", "A", "B", "A")
    const edit = call("e", "edit", { path: "x" })
    const withDiff = { ...edit, parts: edit.parts.map((p) => (p.type === "tool" ? { ...p, diff: "+x", path: "x" } : p)) }
    expect(actionCycle([...ms, withDiff as Message])).toBeNull()
  })
  test("an edit made again (apply, revert, apply …) is no progress: the ping-pong is a cycle", () => {
    const edit = (id: string, from: string, to: string): Message => {
      const m = call(id, "edit", { path: "src/tz.py", old: from, new: to })
      return { ...m, parts: m.parts.map((p) => (p.type === "tool" ? { ...p, state: "completed" as const, diff: `-${from}\n+${to}`, path: "src/tz.py" } : p)) } as Message
    }
    const pingPong: Array<Message> = [user("u0")]
    for (let i = 0; i < 4; i++) pingPong.push(edit(`a${i}`, "utc", "local"), call(`t${i}`, "bash", { command: "pytest -q" }), edit(`r${i}`, "local", "utc"), call(`u${i}`, "bash", { command: "pytest -q" }))
    expect(actionCycle(pingPong)).toMatchObject({ period: 4 })
    // Two different edits that each move the work on are progress, however the tests around them look.
    const onward: Array<Message> = [user("u0")]
    for (let i = 0; i < 4; i++) onward.push(edit(`a${i}`, `v${i}`, `v${i + 1}`), call(`t${i}`, "bash", { command: "pytest -q" }))
    expect(actionCycle(onward)).toBeNull()
  })
  test("git bisect moves the tree: the same `git bisect bad` answering with fewer revisions left is progress; the same answer again is not", () => {
    const shell = (id: string, command: string, output: string): Message => {
      const m = call(id, "bash", { command })
      return { ...m, parts: m.parts.map((p) => (p.type === "tool" ? { ...p, state: "completed" as const, output, exitCode: 0 } : p)) } as Message
    }
    const bisect: Array<Message> = [user("u0")]
    for (let i = 0; i < 6; i++) bisect.push(shell(`t${i}`, "pytest -q", i % 2 === 0 ? "1 failed" : "1 passed"), shell(`b${i}`, "git bisect bad", `Bisecting: ${64 >> i} revisions left to test after this`))
    expect(actionCycle(bisect)).toBeNull()
    const stuck: Array<Message> = [user("u0")]
    for (let i = 0; i < 6; i++) stuck.push(shell(`t${i}`, "pytest -q", "1 failed"), shell(`b${i}`, "git bisect bad", "Bisecting: 3 revisions left to test after this"))
    expect(actionCycle(stuck)).toMatchObject({ period: 2 })
  })
})

describe("actionCycle past bookkeeping", () => {
  test("the same three looks with a plan rewritten in new words between each: a cycle", () => {
    const looks = ["git status --short", "git diff --stat", "ls src/app"]
    const messages: Array<Message> = [user("u0")]
    for (let i = 0; i < 8; i++) {
      messages.push(call(`p${i}`, "update_plan", { explanation: `refining the plan, take ${i}`, plan: [{ step: "split utils", status: "pending" }] }))
      messages.push(call(`a${i}`, "bash", { command: looks[i % 3]! }))
    }
    const c = actionCycle(messages)
    expect([c?.period, c?.bookkeepingSkipped]).toEqual([3, true])
  })
})

describe("actionCycle of a restarted background job", () => {
  test("start, read its output, kill it, again: a cycle though each round's job has a new id", () => {
    const messages: Array<Message> = [user("u0")]
    for (let i = 0; i < 5; i++) {
      messages.push(call(`s${i}`, "Bash", { command: "npm run dev", run_in_background: true }))
      messages.push(call(`o${i}`, "BashOutput", { bash_id: `bash_${i}` }))
      messages.push(call(`k${i}`, "KillShell", { shell_id: `bash_${i}` }))
    }
    expect(actionCycle(messages)?.period).toBe(3)
  })
})
