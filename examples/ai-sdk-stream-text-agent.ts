/**
 * An AI SDK `streamText` agent loop (tools, `stopWhen`) guarded by `loopguardAgent()` from
 * `@loopguard/ai-sdk/agent`, with no Effect installed.
 *
 * The scripted model reads a file, then starts repeating one sentence. The middleware cuts that
 * reply (the server sees the client close the request), the guard counts the tokens it streamed,
 * sends the model a reminder through the AI SDK's steering, and leaves the looping reply out of the
 * next request; the model then answers and the run completes. The report says what happened.
 *
 * Run: bun examples/ai-sdk-stream-text-agent.ts   (or node --experimental-strip-types on Node >= 22
 * with the packages installed). Exits 0 when the loop was cut, the reminder reached the model, and the run completed.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { loopguardAgent } from "@loopguard/ai-sdk/agent"
import { repeatLoop, startScriptedServer, textStream, toolCallStream } from "@loopguard/ai-sdk/testing/server"
import { jsonSchema, stepCountIs, streamText, tool } from "ai"

const LOOP = "I will read the config file again to make sure it is right."
const server = await startScriptedServer([
  toolCallStream("read_file", { path: "config.json" }),
  repeatLoop(LOOP, 300, { chunkDelayMs: 1 }),
  textStream("The config sets port 8080; the service listens on 8081. Set both to 8080.")
])
const model = createOpenAICompatible({ name: "local", baseURL: server.baseURL, apiKey: "none", includeUsage: true }).chatModel(server.modelId)

const readFile = tool({
  description: "Read a file",
  inputSchema: jsonSchema<{ path: string }>({ type: "object", properties: { path: { type: "string" } }, required: ["path"] }),
  execute: async ({ path }) => (path === "config.json" ? '{ "port": 8080 }' : "no such file")
})

const guard = loopguardAgent()
let streamed = ""
let report
try {
  const result = streamText({
    ...guard.wrap({ model, tools: { read_file: readFile }, stopWhen: stepCountIs(8), maxRetries: 0 }),
    prompt: "Why does the service not answer on port 8080?",
    // Lets the guard follow a cut reply with a reminder instead of ending the run there.
    experimental_steering: guard.steering()
  })
  for await (const delta of result.textStream) streamed += delta
  report = guard.report()
} finally {
  await server.close()
}

const cut = server.requests[1]
const nextMessages = (server.requests[2]?.body.messages ?? []) as Array<{ role: string; content: unknown }>
const next = JSON.stringify(nextMessages)
const reminded = nextMessages.filter((m) => m.role === "user").length === 2
console.log(`${server.requests.length} requests; the looping one ended ${cut?.outcome} after ${cut?.chunksWritten} of its chunks`)
console.log(`report: ${report.status} (${report.reason}), ${report.tokens.total} tokens${report.tokens.estimated ? " (the cut step's estimated)" : ""}`)
console.log(`incidents: ${report.incidents.map((i) => `${i.detector}:${i.action}`).join(", ")}`)
console.log(`answer: ${report.finalText}`)

const ok =
  server.requests.length === 3 &&
  cut?.outcome === "client-closed" &&
  report.reason === "final" &&
  report.incidents.some((i) => i.detector === "text-repeat" && i.action === "cut") &&
  report.tokens.estimated === true &&
  !next.includes(LOOP) &&
  reminded &&
  streamed.includes("Set both to 8080")
if (ok) console.log("OK: the loop was cut and left out, the model was reminded, and the run completed.")
else {
  console.error("FAILED: the looping reply was not handled as expected.")
  process.exitCode = 1
}
