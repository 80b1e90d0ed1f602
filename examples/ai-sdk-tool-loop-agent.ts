/**
 * An AI SDK `ToolLoopAgent` guarded across steps, with no Effect installed: `loopguardAgent()`
 * from `@loopguard/ai-sdk/agent` wraps the agent's settings (its `stopWhen`, `prepareStep`,
 * `onStepEnd` and the middleware on the model).
 *
 * The scripted model is stuck: it asks for the same `ls -la` on every step. Without loopguard the
 * agent would run it 20 times (its own `stepCountIs(20)`); with it, the third call gets a note, the
 * fifth a reminder (the server receives it in the next request), and the eighth stops the run. The
 * report says why, what was done and what to do next.
 *
 * Run: bun examples/ai-sdk-tool-loop-agent.ts   (or node --experimental-strip-types on Node >= 22
 * with the packages installed). Exits 0 when the run stopped by the 8th call and the reminder reached the model.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { loopguardAgent, type LoopguardAgentEvent } from "@loopguard/ai-sdk/agent"
import { startScriptedServer, toolCallStream } from "@loopguard/ai-sdk/testing/server"
import { jsonSchema, stepCountIs, tool, ToolLoopAgent } from "ai"

const server = await startScriptedServer(() => toolCallStream("bash", { command: "ls -la" }))
const model = createOpenAICompatible({ name: "local", baseURL: server.baseURL, apiKey: "none", includeUsage: true }).chatModel(server.modelId)

let executions = 0
const bash = tool({
  description: "Run a shell command",
  inputSchema: jsonSchema<{ command: string }>({ type: "object", properties: { command: { type: "string" } }, required: ["command"] }),
  execute: async ({ command }) => {
    executions += 1
    return { stdout: `(${command}) total 0`, exitCode: 0 }
  }
})

const reminders: Array<LoopguardAgentEvent> = []
const guard = loopguardAgent({ onEvent: (e) => void (e.type === "reminder" && reminders.push(e)) })
const agent = new ToolLoopAgent(guard.wrap({ model, tools: { bash }, stopWhen: stepCountIs(20), maxRetries: 0 }))

let report
try {
  await agent.generate({ prompt: "Find out why the build fails." })
  report = guard.report()
} finally {
  await server.close()
}

const remind = reminders.find((e) => e.type === "reminder" && e.kind === "loop-remind")
const received = (index: number, text: string) =>
  (server.requests[index]?.body.messages as Array<{ role: string; content: unknown }> | undefined)?.some((m) => m.role === "user" && m.content === text) === true

console.log(`ls -la ran ${executions} times; the run ended ${report.status} (${report.reason}): ${report.blockedAt}`)
console.log(`the reminder after step ${remind?.step} reached the model in request ${remind === undefined ? "-" : remind.step + 2}`)
console.log(`suggested next step: ${report.suggestedNextStep}`)

if (executions <= 8 && report.reason === "idle" && remind !== undefined && remind.type === "reminder" && received(remind.step + 1, remind.text)) {
  console.log("OK: the stuck agent was reminded, then stopped by the 8th call.")
} else {
  console.error("FAILED: the agent was not stopped as expected.")
  process.exitCode = 1
}
