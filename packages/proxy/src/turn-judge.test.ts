/**
 * A turn taken up from the memo gives the verdict a fresh judge gives, request after request, and a
 * history that changed under it (an agent compacting, a result rewritten) is judged afresh.
 */
import type { AssistantMessage, Message } from "@loopguard/core/model"
import { DEFAULT_CONFIG } from "@loopguard/effect/config"
import { expect, test } from "bun:test"
import { TurnMemo } from "./turn-judge.js"
import { judgeRequest } from "./verdict.js"

const user = (at: number, text: string): Message => ({ role: "user", id: `m${at}`, text })
const call = (at: number, step: number, command: string, output: string): AssistantMessage => ({
  role: "assistant",
  id: `m${at}`,
  parentId: "m0",
  step,
  finish: "tool-calls",
  parts: [{ type: "tool", callId: `c${at}`, name: "bash", input: { command }, state: "completed", output, exitCode: 1 }]
})

/** A conversation that loops on one command from step 4 on, with a second user turn at step 9. */
const conversation = (n: number): Array<Message> => {
  const out: Array<Message> = [user(0, "fix the build")]
  for (let i = 0; i < n; i++) {
    if (i === 9) out.push(user(out.length, "keep going"))
    out.push(call(out.length, i, i < 4 ? `cat f${i}.ts` : "make", i < 4 ? `file ${i}` : "Error 2"))
  }
  return out
}

test("request after request, the memo's verdict is the fresh judge's", () => {
  const memo = new TurnMemo()
  for (let n = 1; n <= 14; n++) {
    const history = conversation(n)
    expect(judgeRequest(history, DEFAULT_CONFIG, { memo, session: "s" })).toEqual(judgeRequest(history, DEFAULT_CONFIG))
    // The same request again (a client retrying it) gives the same verdict too.
    expect(judgeRequest(history, DEFAULT_CONFIG, { memo, session: "s" })).toEqual(judgeRequest(history, DEFAULT_CONFIG))
  }
})

test("a history that changed under the kept turn is judged afresh; sessions do not mix", () => {
  const memo = new TurnMemo(1)
  judgeRequest(conversation(8), DEFAULT_CONFIG, { memo, session: "a" })
  const rewritten = conversation(8).map((m) => (m.role === "assistant" && m.step === 5 ? call(Number(m.id.slice(1)), 5, "make", "ok") : m))
  expect(judgeRequest(rewritten, DEFAULT_CONFIG, { memo, session: "a" })).toEqual(judgeRequest(rewritten, DEFAULT_CONFIG))
  judgeRequest(conversation(3), DEFAULT_CONFIG, { memo, session: "b" })
  expect(judgeRequest(conversation(8), DEFAULT_CONFIG, { memo, session: "a" })).toEqual(judgeRequest(conversation(8), DEFAULT_CONFIG))
})
