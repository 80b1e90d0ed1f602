/**
 * The baseline for `loopguard run`: what a user would write without loopguard — one `streamText`
 * call against the endpoint, the reply consumed and printed. Bundled for Node like the CLI.
 * `--tools` offers the three tools `run` offers (same names and input schemas), so the request is
 * the one `run` sends: the AI SDK adds a stage per part when tools are offered.
 * `--single-call` consumes the SDK's single-call primitive instead of `streamText`, with the
 * same tools: what `run` calls itself, so `run`'s ratio to it is loopguard's own share.
 *
 *   bare-consumer BASE_URL MODEL PROMPT [--tools | --single-call]
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { experimental_streamLanguageModelCall, jsonSchema, streamText, tool, type ToolSet } from "ai"

const [baseURL, model, prompt, mode] = process.argv.slice(2)
const provider = createOpenAICompatible({ name: "bare", baseURL: baseURL!, includeUsage: true })
const schema = (properties: Record<string, unknown>, required: ReadonlyArray<string>) => jsonSchema({ type: "object", properties, required } as never)
const runTools: ToolSet = {
  read_file: tool({ description: "Read a file", inputSchema: schema({ path: { type: "string" } }, ["path"]) }),
  list_dir: tool({ description: "List a folder", inputSchema: schema({ path: { type: "string" } }, []) }),
  bash: tool({ description: "Run a shell command", inputSchema: schema({ command: { type: "string" } }, ["command"]) })
}
let chars = 0
if (mode === "--single-call") {
  const { stream } = await experimental_streamLanguageModelCall({ model: provider.chatModel(model!), messages: [{ role: "user", content: prompt! }], tools: runTools })
  let finish: string | undefined
  for await (const part of stream) {
    if (part.type === "text-delta") chars += part.text.length
    else if (part.type === "model-call-end") finish = part.finishReason
    else if (part.type === "error") throw part.error
  }
  process.stdout.write(`${JSON.stringify({ chars, finish })}\n`)
} else {
  const result = streamText({
    model: provider.chatModel(model!),
    messages: [{ role: "user", content: prompt! }],
    ...(mode === "--tools" ? { tools: runTools } : {}),
    maxRetries: 0,
    onError: () => {}
  })
  for await (const part of result.fullStream) {
    if (part.type === "text-delta") chars += part.text.length
    else if (part.type === "error") throw part.error
  }
  process.stdout.write(`${JSON.stringify({ chars, finish: await result.finishReason })}\n`)
}
