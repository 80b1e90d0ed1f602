/**
 * The baseline for `loopguard run`: what a user would write without loopguard — one `streamText`
 * call against the endpoint, the reply consumed and printed. Bundled for Node like the CLI.
 *
 *   bare-consumer BASE_URL MODEL PROMPT
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { streamText } from "ai"

const [baseURL, model, prompt] = process.argv.slice(2)
const provider = createOpenAICompatible({ name: "bare", baseURL: baseURL!, includeUsage: true })
const result = streamText({ model: provider.chatModel(model!), messages: [{ role: "user", content: prompt! }], maxRetries: 0, onError: () => {} })
let chars = 0
for await (const part of result.fullStream) {
  if (part.type === "text-delta") chars += part.text.length
  else if (part.type === "error") throw part.error
}
process.stdout.write(`${JSON.stringify({ chars, finish: await result.finishReason })}\n`)
