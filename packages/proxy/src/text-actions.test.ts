/**
 * Agents that run an action written in the reply and send its output back as a user message
 * (mini-SWE-agent, SWE-agent): their steps folded into calls and results for the judge, and, over
 * HTTP through the proxy, such an agent repeating one failing command is stopped where the same
 * loop in native tool calls is, while `proxy.textActions: false` lets it run on.
 */
import type { AssistantMessage, Message, ToolPart } from "@loopguard/core/model"
import { textStream } from "@loopguard/ai-sdk/testing"
import { DEFAULT_CONFIG } from "@loopguard/effect/config"
import { afterEach, describe, expect, test } from "bun:test"
import { records, startRig, type Rig } from "./proxy.fixture.js"
import { stopAnswer } from "./notices.js"
import { settingsOf } from "./server.js"
import { withTextActions } from "./text-actions.js"
import { judgeRequest } from "./verdict.js"

const reply = (id: string, text: string): AssistantMessage => ({ role: "assistant", id, parentId: "m0", parts: [{ type: "text", text }], finish: "stop", step: 0 })
const user = (id: string, text: string): Message => ({ role: "user", id, text })

const RUN = "THOUGHT: run the reproduction script again.\n\n```bash\npython reproduce.py\n```"
const FAILED = "<returncode>1</returncode>\n<output>\nTraceback (most recent call last):\nImportError: cannot import name 'thing'\n</output>"

/** A mini-SWE-agent run: the task, then `n` replies that run `python reproduce.py` and the failure each got back. */
const miniRun = (n: number): Array<Message> => {
  const out: Array<Message> = [user("m0", "Fix the import error in the repository.")]
  for (let i = 0; i < n; i++) out.push(reply(`m${out.length}`, RUN), user(`m${out.length + 1}`, FAILED))
  return out
}

describe("withTextActions", () => {
  test("an action reply and the user message after it become one step with its call and result", () => {
    const folded = withTextActions(miniRun(2))
    expect(folded.map((m) => m.role)).toEqual(["user", "assistant", "assistant"])
    const call = (folded[1] as AssistantMessage).parts.find((p): p is ToolPart => p.type === "tool")!
    expect(call).toMatchObject({ name: "bash", input: { command: "python reproduce.py" }, state: "completed", output: FAILED, exitCode: 1 })
    expect((folded[1] as AssistantMessage).finish).toBe("tool-calls")
    // Ids keep the wire positions: the reminders' places and the memo depend on them.
    expect(folded.map((m) => m.id)).toEqual(["m0", "m1", "m3"])
  })

  test("a reply with no action, a reply with native calls and a loopguard reminder are left as they are", () => {
    const native: AssistantMessage = { ...reply("m1", "Listing."), parts: [{ type: "tool", callId: "c1", name: "bash", input: { command: "ls" }, state: "completed", output: "a" }], finish: "tool-calls" }
    const history: Array<Message> = [user("m0", "task"), reply("m1", "I am done."), user("m2", "Thanks, now the tests."), native, user("m3", "next"), reply("m4", RUN), { role: "user", id: "m5", text: "reminder", synthetic: "length-continue" } as Message]
    expect(withTextActions(history)).toEqual(history)
  })

  test("a person answering replies that suggest a command is steering, not a result: a chat or Aider is never folded or stopped", () => {
    const config = settingsOf(DEFAULT_CONFIG).verdict
    const chat: Array<Message> = [user("m0", "Help me fix the failing test.")]
    for (let i = 0; i < 12; i++) chat.push(reply(`m${chat.length}`, "Edit the function, then run:\n\n```bash\npython -m pytest\n```"), user(`m${chat.length + 1}`, i % 2 === 0 ? "continue" : "It still fails the same way."))
    expect(withTextActions(chat)).toEqual(chat)
    for (let n = 3; n <= chat.length; n += 2) expect(judgeRequest(withTextActions(chat.slice(0, n)), config).action).not.toBe("stop")
  })

  test("the last reply of a request, with no result yet, stays a reply", () => {
    const history = [...miniRun(1), reply("m3", RUN)]
    expect(withTextActions(history).map((m) => m.role)).toEqual(["user", "assistant", "assistant"])
    expect((withTextActions(history)[2] as AssistantMessage).parts.some((p) => p.type === "tool")).toBe(false)
  })

  test("the judge stops the folded run within the native loop's bound, and passes it unfolded", () => {
    const config = settingsOf(DEFAULT_CONFIG).verdict
    const stopAt = Array.from({ length: 12 }, (_, i) => i + 1).find((n) => judgeRequest(withTextActions(miniRun(n)), config).action === "stop")
    expect(stopAt).toBeDefined()
    expect(stopAt!).toBeLessThanOrEqual(8)
    for (let n = 1; n <= 12; n++) expect(judgeRequest(miniRun(n), config).action).not.toBe("stop")
  })

  test("a person's message after the stop starts a new turn", () => {
    const config = settingsOf(DEFAULT_CONFIG).verdict
    const run = miniRun(10)
    const stop = judgeRequest(withTextActions(run), config)
    expect(stop.action).toBe("stop")
    const answer = stopAnswer(stop.stop!.loop, stop.stop!.evidence, stop.stop!.next)
    const cameBack = [...run, reply(`m${run.length}`, answer), user(`m${run.length + 1}`, FAILED)]
    const steered = [...run, reply(`m${run.length}`, answer), user(`m${run.length + 1}`, "Try installing the package first.")]
    // The stop answer writes no action: the message after it starts a new turn, a person's or a
    // harness's reply (the same words after the next stop keep it stopped: verdict.ts, turnStartOf).
    expect(withTextActions(steered).at(-1)?.role).toBe("user")
    expect(judgeRequest(withTextActions(steered), config).action).not.toBe("stop")
    expect(judgeRequest(withTextActions(cameBack), config).action).not.toBe("stop")
  })
})

let rig: Rig | undefined
afterEach(async () => {
  await rig?.close()
  rig = undefined
})

/** A mini-SWE-agent-shaped client over HTTP: no tools offered, each reply's command "run" and answered with its failure, up to `max` requests. */
const drive = async (baseURL: string, max: number): Promise<{ readonly requests: number; readonly stoppedAt: number | null; readonly last: string }> => {
  const messages: Array<{ role: string; content: string }> = [{ role: "system", content: "You are a helpful assistant that can interact with a computer." }, { role: "user", content: "Fix the import error in the repository." }]
  for (let i = 1; i <= max; i++) {
    const res = await fetch(`${baseURL}/chat/completions`, { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer client-key" }, body: JSON.stringify({ model: "scripted-model", messages }) })
    const body = (await res.json()) as { choices: Array<{ message: { content: string } }> }
    const content = body.choices[0]!.message.content
    if (res.headers.get("x-loopguard-action") === "stop") return { requests: i, stoppedAt: i, last: content }
    messages.push({ role: "assistant", content }, { role: "user", content: FAILED })
  }
  return { requests: max, stoppedAt: null, last: "" }
}

describe("an agent that runs actions written in its replies, through the proxy", () => {
  test("the same failing command is stopped by its 8th run; the stop names the command", async () => {
    rig = await startRig(Array.from({ length: 20 }, () => textStream(RUN)))
    const run = await drive(`${rig.proxy.url}/v1`, 20)
    expect(run.stoppedAt).not.toBeNull()
    // Request k asks for the step after k - 1 runs: stopped by the 8th run means by the 9th request.
    expect(run.stoppedAt!).toBeLessThanOrEqual(9)
    expect(rig.server.requests.length).toBe(run.stoppedAt! - 1)
    expect(run.last).toContain("python reproduce.py")
    expect(records(rig.events).at(-1)?.action).toBe("stop")
  }, 30_000)

  test("with proxy.textActions off it runs on: every request goes upstream", async () => {
    rig = await startRig(Array.from({ length: 12 }, () => textStream(RUN)), { config: (c) => ({ ...c, proxy: { ...c.proxy, textActions: false } }) })
    const run = await drive(`${rig.proxy.url}/v1`, 12)
    expect(run.stoppedAt).toBeNull()
    expect(rig.server.requests.length).toBe(12)
  }, 30_000)
})
