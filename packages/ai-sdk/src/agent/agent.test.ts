/**
 * The agent helpers in real AI SDK loops (`ToolLoopAgent`, `generateText` and `streamText` with
 * `stopWhen`) through the real OpenAI-compatible provider against the scripted server; what the
 * guard did is judged from the server's request log and from the tools' own execution counts.
 */
import { afterEach, describe, expect, test } from "bun:test"
import { generateText, jsonSchema, stepCountIs, streamText, tool, ToolLoopAgent, type ModelMessage, type ToolSet } from "ai"
import { repeatLoop, scriptedChatModel, startScriptedServer, textStream, toolCallStream } from "../scripted-server/index.js"
import type { Script, ScriptedServer, StreamResponse } from "../scripted-server/index.js"
import { loopguardAgent, type LoopguardAgentEvent, type LoopguardAgentOptions } from "./index.js"

const TIMEOUT = 60_000
const open: Array<ScriptedServer> = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()))
})

const serve = async (script: Script) => {
  const server = await startScriptedServer(script)
  open.push(server)
  return server
}

/** A shell-like tool answering from `answer`, counting its executions. */
const shell = (answer: (command: string) => { output: string; exitCode: number }) => {
  const ran: Array<string> = []
  const tools: ToolSet = {
    bash: tool({
      inputSchema: jsonSchema<{ command: string }>({ type: "object", properties: { command: { type: "string" } }, required: ["command"] }),
      execute: async ({ command }) => {
        ran.push(command)
        return answer(command)
      }
    })
  }
  return { tools, ran }
}

/** The user messages of a recorded request's body. */
const userTexts = (server: ScriptedServer, index: number): Array<string> =>
  (server.requests[index]!.body.messages as Array<{ role: string; content: unknown }>).filter((m) => m.role === "user").map((m) => String(m.content))

const withEvents = (options: LoopguardAgentOptions = {}) => {
  const events: Array<LoopguardAgentEvent> = []
  const guard = loopguardAgent({ sessionId: "s-test", ...options, onEvent: (e) => events.push(e) })
  return { guard, events }
}

describe("loopguardAgent in a ToolLoopAgent", () => {
  test(
    "the same tool call on every step: a note, a reminder the server receives, a stop by the 8th execution",
    async () => {
      const server = await serve(() => toolCallStream("bash", { command: "ls -la" }))
      const { tools, ran } = shell(() => ({ output: "total 0", exitCode: 0 }))
      const { guard, events } = withEvents()
      const agent = new ToolLoopAgent(guard.wrap({ model: scriptedChatModel(server), tools, stopWhen: stepCountIs(20), maxRetries: 0 }))
      const result = await agent.generate({ prompt: "list the files" })
      expect(ran.length).toBeLessThanOrEqual(8)
      expect(ran.length).toBeGreaterThanOrEqual(5)
      expect(server.requests.length).toBe(ran.length)
      const report = guard.report()
      expect([report.status, report.reason]).toEqual(["aborted", "idle"])
      const remind = events.find((e) => e.type === "reminder" && e.kind === "loop-remind")
      expect(remind).toBeDefined()
      if (remind?.type !== "reminder") throw new Error("no reminder")
      expect(userTexts(server, remind.step + 1)).toContain(remind.text)
      // The note is for one request only: the server saw it once.
      const note = events.find((e) => e.type === "reminder" && e.kind === "note")
      if (note?.type !== "reminder") throw new Error("no note")
      expect(userTexts(server, note.step + 1)).toContain(note.text)
      const stopped = result.steps[result.steps.length - 1]!.providerMetadata?.["loopguard"] as { stop?: { reason: string } } | undefined
      expect(stopped?.stop?.reason).toBe("idle")
      expect(report.incidents.some((i) => i.detector === "repeated-action" && i.action === "stop")).toBe(true)
    },
    TIMEOUT
  )
})
