/**
 * Scripts a real agent's requests can follow whatever tools it declares: the scripted model finds the
 * agent's own shell tool in the request and calls it, so one script serves pi, OpenCode or any
 * Chat Completions agent. Requests without tools (OpenCode's title request) get a short title.
 */
import { repeatLoop, textStream, toolCallStream, type Script, type StreamResponse } from "@loopguard/ai-sdk/testing"

const SHELL_TOOL_NAMES = ["bash", "shell", "run_shell_command", "Bash", "exec_command"]

interface DeclaredTool {
  readonly name: string
  readonly parameters: { readonly properties?: Record<string, { readonly type?: unknown }>; readonly required?: ReadonlyArray<string> }
}

const declaredTools = (body: any): Array<DeclaredTool> =>
  (Array.isArray(body?.tools) ? body.tools : [])
    .map((t: any) => ({ name: t?.function?.name, parameters: t?.function?.parameters ?? {} }))
    .filter((t: DeclaredTool) => typeof t.name === "string")

/** The agent's shell tool: a known name first, else any tool taking a `command` string. */
export const shellToolOf = (body: any): DeclaredTool | undefined => {
  const tools = declaredTools(body)
  return (
    SHELL_TOOL_NAMES.map((name) => tools.find((t) => t.name === name)).find((t) => t !== undefined) ??
    tools.find((t) => t.parameters.properties?.["command"] !== undefined)
  )
}

/** Tool results already in the conversation: the step number of the agent's loop. */
export const toolResultsIn = (body: any): number =>
  (Array.isArray(body?.messages) ? body.messages : []).filter((m: any) => m?.role === "tool").length

/** A call of the agent's shell tool running `command`; other required string fields get a short filler. */
export const shellCall = (body: any, command: string, step: number): StreamResponse => {
  const tool = shellToolOf(body)
  if (tool === undefined) return textStream("The request offered no shell tool.")
  const args: Record<string, unknown> = { command }
  for (const field of tool.parameters.required ?? []) {
    if (!(field in args) && tool.parameters.properties?.[field]?.type === "string") args[field] = "scripted step"
  }
  return toolCallStream(tool.name, args, { id: `call_step_${step}` })
}

/** Answers a request that offers no tools (a title or summary side request) with a title. */
const sideRequest = (body: any): StreamResponse | undefined =>
  declaredTools(body).length === 0 ? textStream("Scripted test") : undefined

export const LOOP_PARAGRAPH =
  "I will now check the configuration file again to make sure that every setting is right before I continue with the task. "

/** (a) The reply is one paragraph repeated `times` times: a degenerate loop inside one stream. */
export const paragraphLoopScript = (times: number): Script => (body) =>
  sideRequest(body) ?? repeatLoop(LOOP_PARAGRAPH, times, { chunkSize: 48, chunkDelayMs: 4, finish: "stop" })

export const REPEATED_COMMAND = "echo x >> marker.txt"

/** (b) Every step asks for the same shell call: the agent never gets an answer that ends its turn. */
export const repeatedShellScript: Script = (body) =>
  sideRequest(body) ?? shellCall(body, REPEATED_COMMAND, toolResultsIn(body))

export const HEALTHY_COMMAND = "printf 'healthy\\n' > marker.txt"
export const HEALTHY_ANSWER = "I wrote marker.txt; the task is done."

/** (c) A short healthy task: write the marker with the shell tool, then answer. */
export const healthyTaskScript: Script = (body) =>
  sideRequest(body) ?? (toolResultsIn(body) === 0 ? shellCall(body, HEALTHY_COMMAND, 0) : textStream(HEALTHY_ANSWER))
