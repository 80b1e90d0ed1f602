/**
 * A development trace (../shared/traces) as if its agent had run behind the proxy: every request
 * of the run judged as the proxy judges it, one after another through a process's memo.
 */
import type { Message } from "@loopguard/core/model"
import { DEFAULT_CONFIG } from "@loopguard/effect/config"
import { expect } from "bun:test"
import { settingsOf } from "./server.js"
import { TurnMemo } from "./turn-judge.js"
import { judgeRequest } from "./verdict.js"

/**
 * The first request stopped, counted in assistant steps before it (null: none), and the requests
 * judged. `judged` turns each request's history into what the judge reads (the handler's part);
 * every 5th request the memo's verdict is checked against a fresh judge's.
 */
export const firstStop = (messages: ReadonlyArray<Message>, session: string, judged: (history: ReadonlyArray<Message>) => ReadonlyArray<Message> = (h) => h): { readonly stoppedAfter: number | null; readonly requests: number } => {
  const config = settingsOf(DEFAULT_CONFIG).verdict
  const memo = { memo: new TurnMemo(), session }
  let step = -1
  let requests = 0
  for (let i = 0; i < messages.length; i++) {
    if (messages[i]!.role !== "assistant") continue
    step += 1
    // The request that asks for the step after this one: this reply and the results that answer it.
    let end = i + 1
    while (end < messages.length && messages[end]!.role !== "assistant") end++
    const history = judged(messages.slice(0, end))
    const verdict = judgeRequest(history, config, memo)
    requests += 1
    if (requests % 5 === 0) expect(verdict).toEqual(judgeRequest(history, config))
    if (verdict.action === "stop") return { stoppedAfter: step, requests }
  }
  return { stoppedAfter: null, requests }
}
