/**
 * Codex CLI rollout files (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl): one `{timestamp, type,
 * payload}` per line. `session_meta` names the session, `turn_context` the model, `response_item`
 * lines hold the conversation (messages, reasoning, `function_call` / `custom_tool_call` /
 * `local_shell_call` and their outputs), and the `token_count` event the usage of the reply before
 * it. One model reply is the run of reply items (reasoning, assistant text, calls) between two
 * inputs (outputs of calls, user messages). Rollouts of older versions write the items bare, one
 * per line, after a first line of session fields; they read the same.
 */
import type { JsonObject } from "../fields.js"
import type { TraceToolResult } from "../types.js"
import { newDraft, joinText, type StepDraft } from "./builder.js"
import { arr, num, obj, parseArguments, str, textOf } from "./json-line.js"
import { codexCallOutput } from "./codex-output.js"
import { JsonLinesReader } from "./json-lines-reader.js"
import type { TraceReader } from "./reader.js"
import { patchFiles } from "./unified-diff.js"

/** Items a model reply is made of; any other item ends the reply. */
const REPLY_ITEMS = new Set(["reasoning", "function_call", "custom_tool_call", "local_shell_call", "web_search_call"])
const OUTPUT_ITEMS = new Set(["function_call_output", "custom_tool_call_output"])
/** Records with nothing to replay: events echo the response items, compaction is bookkeeping. */
// 0.17x adds `world_state` and `token_usage_record` lines: the harness's state and counters, not the conversation.
const SILENT_TYPES = new Set(["event_msg", "compacted", "state", "world_state", "token_usage_record"])
/** Response items that are bookkeeping of the harness (its undo snapshots), not the conversation. */
const SILENT_ITEMS = new Set(["ghost_snapshot"])

/** User-role messages Codex writes itself (the environment, AGENTS.md): context, not a turn. */
const HARNESS_CONTEXT = /^\s*(?:<(?:environment_context|user_instructions)>|# AGENTS\.md instructions for )/

/** A call whose result is yet to come: what the result needs to know about it. */
interface OpenCall {
  readonly name: string
  readonly patch?: string
}

class CodexReader extends JsonLinesReader {
  private draft: StepDraft | null = null
  private readonly calls = new Map<string, OpenCall>()

  protected finish(): void {
    this.flush()
  }

  protected record(o: JsonObject, line: number): void {
    const type = str(o, "type")
    const payload = obj(o, "payload")
    if (type === "session_meta") return this.b.session(line, { id: str(payload, "id"), agent: str(payload, "originator") })
    if (type === "turn_context") return this.b.session(line, { model: str(payload, "model") })
    if (type === "response_item" && payload !== undefined) return this.item(payload, line)
    if (type === "event_msg") return this.event(payload)
    if (type === undefined && o["record_type"] === undefined && str(o, "id") !== undefined) return this.b.session(line, { id: str(o, "id") })
    if (type !== undefined && SILENT_TYPES.has(type)) return
    if (o["record_type"] !== undefined) return
    // Older rollouts: the item itself on the line.
    if (type !== undefined && (REPLY_ITEMS.has(type) || OUTPUT_ITEMS.has(type) || type === "message")) return this.item(o, line)
    this.b.skipped(line, `record "${type ?? "?"}" is not part of a Codex rollout's conversation`)
  }

  private event(payload: JsonObject | undefined): void {
    if (str(payload, "type") !== "token_count" || this.draft === null || this.draft.usage !== undefined) return
    const u = obj(obj(payload, "info"), "last_token_usage")
    if (u === undefined) return
    const input = num(u, "input_tokens")
    this.draft.usage = {
      ...(input !== undefined ? { inputTokens: input } : {}),
      ...(num(u, "output_tokens") !== undefined ? { outputTokens: num(u, "output_tokens")! } : {}),
      ...(num(u, "total_tokens") !== undefined ? { totalTokens: num(u, "total_tokens")! } : {}),
      ...(num(u, "reasoning_output_tokens") !== undefined ? { reasoningTokens: num(u, "reasoning_output_tokens")! } : {}),
      ...(num(u, "cached_input_tokens") !== undefined ? { cachedInputTokens: num(u, "cached_input_tokens")! } : {})
    }
  }

  private item(p: JsonObject, line: number): void {
    const type = str(p, "type") ?? "?"
    if (type === "message") return this.message(p, line)
    if (OUTPUT_ITEMS.has(type)) return this.output(p, line)
    if (SILENT_ITEMS.has(type)) return
    if (!REPLY_ITEMS.has(type)) return this.b.note(line, `response item "${type}" has no trace v1 counterpart; skipped`)
    const d = this.replyDraft(line, type === "reasoning")
    if (type === "reasoning") d.reasoning = joinText(d.reasoning, reasoningText(p))
    else if (type === "web_search_call") d.toolCalls.push({ id: str(p, "id") ?? `ws${line}`, name: "web_search", input: obj(p, "action") ?? {} })
    else this.call(d, p, type, line)
  }

  /** The open reply, or a new one: reasoning after text or calls begins the next reply. */
  private replyDraft(line: number, reasoning: boolean): StepDraft {
    if (this.draft !== null && reasoning && (this.draft.text !== "" || this.draft.toolCalls.length > 0)) this.flush()
    this.draft ??= newDraft(line)
    return this.draft
  }

  private call(d: StepDraft, p: JsonObject, type: string, line: number): void {
    const id = str(p, "call_id") ?? str(p, "id")
    if (id === undefined) return this.b.note(line, `${type} without "call_id"; call skipped`)
    if (type === "local_shell_call") {
      const command = arr(obj(p, "action"), "command")
      d.toolCalls.push({ id, name: "local_shell", input: { command } })
      return void this.calls.set(id, { name: "local_shell" })
    }
    const name = str(p, "name") ?? "?"
    const input = type === "custom_tool_call" ? (str(p, "input") ?? "") : parseArguments(str(p, "arguments") ?? "{}")
    d.toolCalls.push({ id, name, input: type === "custom_tool_call" && name === "apply_patch" ? { input } : input })
    this.calls.set(id, { name, ...(patchOf(name, input) !== undefined ? { patch: patchOf(name, input)! } : {}) })
  }

  private message(p: JsonObject, line: number): void {
    const role = str(p, "role")
    const text = arr(p, "content").map(textOf).filter((t) => t !== "").join("\n")
    if (role === "assistant") {
      if (this.draft !== null && this.draft.toolCalls.length > 0) this.flush()
      this.draft ??= newDraft(line)
      this.draft.text = joinText(this.draft.text, text)
      return
    }
    this.flush()
    if (role === "user" && !HARNESS_CONTEXT.test(text)) this.b.user(line, text)
    // developer / system messages are instructions, not turns of the run.
  }

  private output(p: JsonObject, line: number): void {
    this.flush()
    const id = str(p, "call_id")
    if (id === undefined) return this.b.note(line, `call output without "call_id"; skipped`)
    const call = this.calls.get(id)
    this.calls.delete(id)
    const out = codexCallOutput(p["output"])
    const r: Omit<TraceToolResult, "type"> = { line, id, output: out.text, ...(call !== undefined ? { name: call.name } : {}) }
    const files = call?.patch === undefined ? [] : patchFiles(call.patch)
    this.b.result({
      ...r,
      ...(out.exitCode !== undefined ? { exitCode: out.exitCode } : {}),
      ...(out.error !== undefined ? { error: out.error } : {}),
      ...(files.length > 0 ? { path: files[0]!, diff: call!.patch! } : {})
    })
  }

  private flush(): void {
    if (this.draft !== null) this.b.assistant(this.draft)
    this.draft = null
  }
}

const reasoningText = (p: JsonObject): string => {
  const summary = arr(p, "summary").map(textOf).filter((t) => t !== "").join("\n")
  const content = arr(p, "content").map(textOf).filter((t) => t !== "").join("\n")
  return content !== "" ? content : summary
}

const PATCH = /\*\*\* Begin Patch[\s\S]*?\*\*\* End Patch/

/**
 * The patch an edit call carries: `apply_patch`'s input, a shell argv running `apply_patch`, or a
 * command line that runs it with the patch in a heredoc (`exec_command {cmd: "apply_patch <<'EOF' …"}`,
 * how Codex 0.17x edits).
 */
const patchOf = (name: string, input: unknown): string | undefined => {
  if (name === "apply_patch" && typeof input === "string") return input
  const fields = typeof input === "object" && input !== null ? (input as Record<string, unknown>) : {}
  const command = fields["command"] ?? fields["cmd"]
  if (Array.isArray(command) && command[0] === "apply_patch" && typeof command[1] === "string") return command[1]
  if (typeof command === "string" && /^\s*apply_patch\b/.test(command)) return PATCH.exec(command)?.[0]
  return undefined
}

export const codexReader = (file: string): TraceReader => new CodexReader(file)
