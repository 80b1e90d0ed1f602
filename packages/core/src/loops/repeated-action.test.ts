import { describe, expect, test } from "bun:test"
import { call, reply, user } from "./fixtures.js"
import { REPEATED_ACTION_NOTE } from "./prompts.js"
import { repeatedAction } from "./repeated-action.js"

const ls = { command: "ls -la", cwd: "/repo" }

describe("repeatedAction", () => {
  test("2 equal steps: nothing; 3: a note", () => {
    expect(repeatedAction([user("u1"), call("a1", "bash", ls), call("a2", "bash", ls)])).toBeNull()
    const r = repeatedAction([user("u1"), call("a1", "bash", ls), call("a2", "bash", ls), call("a3", "bash", ls)])
    expect(r).not.toBeNull()
    expect(r!.note).toBe(REPEATED_ACTION_NOTE)
    expect(r!.count).toBe(3)
    expect(r!.stepIds).toEqual(["a3", "a2", "a1"])
    expect(r!.signature).toBe('bash({"command":"ls -la","cwd":"/repo"})')
  })

  test("a todo list rewritten between the calls neither counts nor breaks the run; a run of todo writes alone still counts", () => {
    const todo = (id: string, n: number) => call(id, "TodoWrite", { todos: [{ content: `step ${n}`, status: "in_progress" }] })
    const read = (id: string) => call(id, "Read", { file_path: "src/app.ts" })
    const r = repeatedAction([user("u1"), read("a1"), todo("t1", 1), read("a2"), todo("t2", 2), read("a3"), todo("t3", 3)])
    expect(r?.count).toBe(3)
    expect(r?.stepIds).toEqual(["a3", "a2", "a1"])
    expect(r?.bookkeepingSkipped).toBe(true)
    const same = (id: string) => call(id, "TodoWrite", { todos: [{ content: "fix it", status: "pending" }] })
    const todos = repeatedAction([user("u1"), same("t1"), same("t2"), same("t3")])
    expect([todos?.count, todos?.bookkeepingSkipped]).toEqual([3, false])
  })

  test("maxCount: a run of thousands of the same step is counted to the bound, newest first", () => {
    const run = Array.from({ length: 3000 }, (_, i) => call(`a${i}`, "bash", ls))
    const r = repeatedAction(run, { repeats: 3, note: "n", maxCount: 16 })
    expect(r?.count).toBe(16)
    expect(r?.stepIds[0]).toBe("a2999")
    expect(repeatedAction(run)?.count).toBe(3000)
  })

  test("argument key order does not matter; argument values do", () => {
    const swapped = { cwd: "/repo", command: "ls -la" }
    expect(repeatedAction([call("a1", "bash", ls), call("a2", "bash", swapped), call("a3", "bash", ls)])?.count).toBe(3)
    expect(repeatedAction([call("a1", "bash", ls), call("a2", "bash", { ...ls, cwd: "/" }), call("a3", "bash", ls)])).toBeNull()
  })

  test("only tool calls count: different text and reasoning still repeat", () => {
    const msgs = [
      call("a1", "read", { path: "x" }, { text: "first look" }),
      call("a2", "read", { path: "x" }, { text: "second look", reasoning: "hmm" }),
      call("a3", "read", { path: "x" }, { text: "third look" })
    ]
    expect(repeatedAction(msgs)?.count).toBe(3)
  })

  test("a step without tool calls stops the collection", () => {
    const msgs = [call("a1", "bash", ls), call("a2", "bash", ls), reply({ id: "t", text: "thinking aloud" }), call("a3", "bash", ls)]
    expect(repeatedAction(msgs)).toBeNull()
  })

  test("user messages (e.g. reminders) neither count nor break", () => {
    const msgs = [call("a1", "bash", ls), user("r1", "keep going", { synthetic: "think-only" }), call("a2", "bash", ls), call("a3", "bash", ls)]
    expect(repeatedAction(msgs)?.count).toBe(3)
  })

  test("unfinished and excluded replies are skipped", () => {
    const msgs = [
      call("a1", "bash", ls),
      call("a2", "bash", ls),
      call("x", "bash", { command: "other" }, { excluded: "rollback" }),
      call("a3", "bash", ls),
      call("live", "bash", { command: "other" }, { finish: null })
    ]
    expect(repeatedAction(msgs)?.stepIds).toEqual(["a3", "a2", "a1"])
  })

  test("the whole run is counted; repeats is configurable", () => {
    const msgs = [call("a0", "bash", { command: "pwd" }), ...[1, 2, 3, 4].map((i) => call(`a${i}`, "bash", ls))]
    expect(repeatedAction(msgs)?.count).toBe(4)
    expect(repeatedAction(msgs, { repeats: 5, note: "n" })).toBeNull()
    expect(repeatedAction(msgs.slice(0, 3), { repeats: 2, note: "n" })?.note).toBe("n")
  })

  test("multi-call steps compare their whole signature in order", () => {
    const two = (id: string, first: string, second: string) =>
      reply({ id, tools: [["read", { path: first }], ["read", { path: second }]] })
    expect(repeatedAction([two("a", "x", "y"), two("b", "x", "y"), two("c", "x", "y")])?.count).toBe(3)
    expect(repeatedAction([two("a", "x", "y"), two("b", "y", "x"), two("c", "x", "y")])).toBeNull()
  })

  test("empty history", () => {
    expect(repeatedAction([])).toBeNull()
  })
})
