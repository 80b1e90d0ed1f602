/**
 * Scripts a real agent's requests can follow whatever tools it declares: the scripted model finds the
 * agent's own shell tool in the request and calls it, so one script serves every agent, in each of
 * the four wire protocols (Chat Completions, Responses, Messages, Gemini: the scripted server frames
 * the same reply for each). Requests without tools (a title request) get a short title.
 */
import { repeatLoop, textStream, toolCallStream, type StreamResponse } from "@loopguard/ai-sdk/testing"

/** A script that answers each request from its body alone (so any order of side requests is fine). */
export type BodyScript = (body: any) => StreamResponse

const SHELL_TOOL_NAMES = ["bash", "shell", "run_shell_command", "Bash", "exec_command"]

interface DeclaredTool {
  readonly name: string
  readonly parameters: { readonly properties?: Record<string, { readonly type?: unknown }>; readonly required?: ReadonlyArray<string> }
}

// Chat Completions nests a tool under `function`; Responses has it flat; Messages calls the schema
// `input_schema`; Gemini lists `functionDeclarations`, each with `parameters` or `parametersJsonSchema`.
const declaredTools = (body: any): Array<DeclaredTool> =>
  (Array.isArray(body?.tools) ? body.tools : [])
    .flatMap((t: any) => (Array.isArray(t?.functionDeclarations) ? t.functionDeclarations : [t]))
    .map((t: any) => {
      const fn = t?.function ?? t
      return { name: fn?.name, parameters: fn?.parameters ?? fn?.input_schema ?? fn?.parametersJsonSchema ?? {} }
    })
    .filter((t: DeclaredTool) => typeof t.name === "string")

/** The agent's shell tool: a known name first, else any tool taking a `command` string. */
export const shellToolOf = (body: any): DeclaredTool | undefined => {
  const tools = declaredTools(body)
  return (
    SHELL_TOOL_NAMES.map((name) => tools.find((t) => t.name === name)).find((t) => t !== undefined) ??
    tools.find((t) => t.parameters.properties?.["command"] !== undefined || t.parameters.properties?.["cmd"] !== undefined)
  )
}

const isToolResult = (entry: any): boolean =>
  entry?.role === "tool" || // Chat Completions
  entry?.type === "function_call_output" || // Responses input item
  (Array.isArray(entry?.content) && entry.content.some((block: any) => block?.type === "tool_result")) || // Messages
  (Array.isArray(entry?.parts) && entry.parts.some((part: any) => part?.functionResponse !== undefined)) // Gemini

/** Tool results already in the conversation: the step number of the agent's loop. */
export const toolResultsIn = (body: any): number => {
  const history = Array.isArray(body?.messages) ? body.messages : Array.isArray(body?.input) ? body.input : Array.isArray(body?.contents) ? body.contents : []
  return history.filter(isToolResult).length
}

/** The arguments of the agent's shell tool running `command`; other required string fields get a short filler. */
const shellArguments = (tool: DeclaredTool, command: string): Record<string, unknown> => {
  const properties = tool.parameters.properties ?? {}
  const commandField = "command" in properties ? "command" : "cmd" in properties ? "cmd" : "command"
  // Some shells take argv (`["bash", "-lc", "…"]`) rather than a command line.
  const args: Record<string, unknown> = { [commandField]: properties[commandField]?.type === "array" ? ["bash", "-lc", command] : command }
  for (const field of tool.parameters.required ?? []) {
    if (!(field in args) && properties[field]?.type === "string") args[field] = "scripted step"
  }
  return args
}

/** A call of the agent's shell tool running `command`. */
export const shellCall = (body: any, command: string, step: number): StreamResponse => {
  const tool = shellToolOf(body)
  if (tool === undefined) return textStream("The request offered no shell tool.")
  return toolCallStream(tool.name, shellArguments(tool, command), { id: `call_step_${step}` })
}

/** The same call written as text in the reply (`<tool_call>{…}</tool_call>`), as some models write their calls. */
export const shellCallAsText = (body: any, command: string): StreamResponse => {
  const tool = shellToolOf(body)
  if (tool === undefined) return textStream("The request offered no shell tool.")
  return textStream(`I will write the marker.\n<tool_call>${JSON.stringify({ name: tool.name, arguments: shellArguments(tool, command) })}</tool_call>`)
}

/** Answers a request that offers no tools (a title or summary side request) with a title. */
const sideRequest = (body: any): StreamResponse | undefined =>
  declaredTools(body).length === 0 ? textStream("Scripted test") : undefined

export const LOOP_PARAGRAPH =
  "I will now check the configuration file again to make sure that every setting is right before I continue with the task. "

/** (a) The reply is one paragraph repeated `times` times: a degenerate loop inside one stream. */
export const paragraphLoopScript = (times: number): BodyScript => (body) =>
  sideRequest(body) ?? repeatLoop(LOOP_PARAGRAPH, times, { chunkSize: 48, chunkDelayMs: 4, finish: "stop" })

export const REPEATED_COMMAND = "echo x >> marker.txt"

/** (b) Every step asks for the same shell call: the agent never gets an answer that ends its turn. */
export const repeatedShellScript: BodyScript = (body) =>
  sideRequest(body) ?? shellCall(body, REPEATED_COMMAND, toolResultsIn(body))

export const HEALTHY_COMMAND = "printf 'healthy\\n' > marker.txt"
export const HEALTHY_ANSWER = "I wrote marker.txt; the task is done."

/** (c) A short healthy task: write the marker with the shell tool, then answer. */
export const healthyTaskScript: BodyScript = (body) =>
  sideRequest(body) ?? (toolResultsIn(body) === 0 ? shellCall(body, HEALTHY_COMMAND, 0) : textStream(HEALTHY_ANSWER))

/** (d) The healthy task with the model writing its shell call as text: only a structured call runs. */
export const textCallTaskScript: BodyScript = (body) =>
  sideRequest(body) ?? (toolResultsIn(body) === 0 ? shellCallAsText(body, HEALTHY_COMMAND) : textStream(HEALTHY_ANSWER))
