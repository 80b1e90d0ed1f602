/**
 * Reading what reached the scripted server: the OpenAI chat-completions messages of one request,
 * grouped the way the loops e2e tests ask about them (user texts, tool-call ids, reasoning).
 */
import type { ScriptedServer } from "@loopguard/ai-sdk/testing"
import type { ToolDefinition, ToolResult } from "@loopguard/effect"

export interface WireMessage {
  readonly role: string
  readonly content?: unknown
  readonly reasoning_content?: string
  readonly tool_calls?: ReadonlyArray<{ readonly id: string; readonly function: { readonly name: string; readonly arguments: string } }>
  readonly tool_call_id?: string
}

export const wireMessages = (server: ScriptedServer, i: number): ReadonlyArray<WireMessage> => {
  const request = server.requests[i]
  if (request === undefined) throw new Error(`request ${i} never reached the server (${server.requests.length} did)`)
  return (request.body?.messages ?? []) as ReadonlyArray<WireMessage>
}

/** A message's content as plain text (string content, or the text parts of an array). */
export const contentText = (m: WireMessage): string => {
  if (typeof m.content === "string") return m.content
  if (Array.isArray(m.content)) return m.content.map((p: { text?: string }) => p.text ?? "").join("")
  return ""
}

export const userTexts = (server: ScriptedServer, i: number): ReadonlyArray<string> =>
  wireMessages(server, i).filter((m) => m.role === "user").map(contentText)

export const assistantTexts = (server: ScriptedServer, i: number): ReadonlyArray<string> =>
  wireMessages(server, i).filter((m) => m.role === "assistant").map(contentText)

export const reasoningTexts = (server: ScriptedServer, i: number): ReadonlyArray<string> =>
  wireMessages(server, i).flatMap((m) => (m.role === "assistant" && m.reasoning_content !== undefined ? [m.reasoning_content] : []))

/** Ids of every tool call the assistant messages of request i carry, in order. */
export const toolCallIds = (server: ScriptedServer, i: number): ReadonlyArray<string> =>
  wireMessages(server, i).flatMap((m) => (m.role === "assistant" ? (m.tool_calls ?? []).map((c) => c.id) : []))

/** Ids of the tool results (role "tool") of request i. */
export const toolResultIds = (server: ScriptedServer, i: number): ReadonlyArray<string> =>
  wireMessages(server, i).flatMap((m) => (m.role === "tool" && m.tool_call_id !== undefined ? [m.tool_call_id] : []))

/** How many user messages of request i are exactly `text`. */
export const countUser = (server: ScriptedServer, i: number, text: string): number =>
  userTexts(server, i).filter((t) => t === text).length

/** A `bash` tool that records every input it ran and always succeeds. */
export const recordingShell = (): { readonly tool: ToolDefinition; readonly ran: Array<Record<string, unknown>> } => {
  const ran: Array<Record<string, unknown>> = []
  const tool: ToolDefinition = {
    spec: {
      name: "bash",
      description: "run a shell command",
      inputSchema: { type: "object", properties: { command: { type: "string" }, cwd: { type: "string" } } }
    },
    run: async (input): Promise<ToolResult> => {
      ran.push(input)
      return { state: "completed", output: `ran ${String(input["command"])} #${ran.length}`, exitCode: 0 }
    }
  }
  return { tool, ran }
}
