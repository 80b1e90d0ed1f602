/**
 * A plain AI SDK app (no Effect) with loopguard's middleware: `wrapLanguageModel` guards every
 * call. A reply that starts repeating one sentence is cut as soon as the repetition rule holds
 * (the upstream HTTP request is closed, the finish reason and `providerMetadata.loopguard` say
 * why); a healthy reply passes through untouched.
 *
 * Run: bun examples/ai-sdk-middleware.ts   (or node --experimental-strip-types on Node >= 22
 * with the packages installed). Exits 0 when the loop was cut and the healthy reply was not.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { loopguardMiddleware } from "@loopguard/ai-sdk/agent"
import { repeatLoop, startScriptedServer, textStream } from "@loopguard/ai-sdk/testing"
import { generateText, streamText, wrapLanguageModel } from "ai"

const SENTENCE = "I will check the config file again to be sure it is right"
const HEALTHY = "The config was missing the port; I added it and the server starts."

// 500 copies of one sentence, then a healthy answer.
const server = await startScriptedServer([repeatLoop(SENTENCE, 500, { chunkDelayMs: 1 }), textStream(HEALTHY)])

try {
  const provider = createOpenAICompatible({ name: "local", baseURL: server.baseURL, apiKey: "none", includeUsage: true })
  const model = wrapLanguageModel({
    model: provider.chatModel(server.modelId),
    middleware: loopguardMiddleware({ onTrip: (trip) => console.log(`loopguard cut the call: ${JSON.stringify(trip)}`) })
  })

  const looping = streamText({ model, prompt: "Fix the server start-up.", maxRetries: 0 })
  let streamed = ""
  for await (const delta of looping.textStream) streamed += delta
  const finish = await looping.finishReason
  const why = (await looping.providerMetadata)?.["loopguard"]
  const copies = streamed.split(SENTENCE).length - 1
  await server.requests[0]!.done
  const outcome = server.requests[0]!.outcome
  console.log(`looping reply: ${copies} of 500 copies streamed, finish "${finish}", the server saw "${outcome}"`)

  const healthy = await generateText({ model, prompt: "Fix the server start-up.", maxRetries: 0 })
  console.log(`healthy reply: finish "${healthy.finishReason}": ${healthy.text}`)

  const ok = copies < 500 && finish === "other" && why !== undefined && outcome === "client-closed" && healthy.text === HEALTHY && healthy.finishReason === "stop"
  if (ok) console.log("OK: the loop was cut, the healthy reply passed.")
  else {
    console.error("FAILED: the loop was not cut, or the healthy reply was changed.")
    process.exitCode = 1
  }
} finally {
  await server.close()
}
