/**
 * Codex CLI rollout files (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl): one `{timestamp, type,
 * payload}` per line. `session_meta` names the session, `turn_context` the model, `response_item`
 * lines hold the conversation (messages, reasoning, `function_call` / `custom_tool_call` /
 * `local_shell_call` and their outputs), and the `token_count` event the usage of the reply before
 * it (0.17x writes it after the outputs of the reply's calls). One model reply is the run of reply
 * items (reasoning, assistant text, calls) between two inputs (outputs of calls, user messages).
 * A compaction ends the reply before it; its summary (the reply to the compaction request) is no
 * step. A turn that failed on the model (`task_complete.error`, an `error` event) is a step with that
 * error. Rollouts of older versions write the items bare, one per line, after a first line of session
 * fields; they read the same.
 */
import type { Usage } from "../../model/stream.js"
import type { JsonObject } from "../fields.js"
import type { TraceError, TraceToolResult } from "../types.js"
import { newDraft, joinText, type StepDraft } from "./builder.js"
import { arr, num, obj, parseArguments, str, textOf } from "./json-line.js"
import { codexCallOutput } from "./codex-output.js"
import { JsonLinesReader } from "./json-lines-reader.js"
import type { TraceReader } from "./reader.js"
import { patchFiles } from "./unified-diff.js"

/** Items a model reply is made of; any other item ends the reply. */
const REPLY_ITEMS = new Set(["reasoning", "function_call", "custom_tool_call", "local_shell_call", "web_search_call"])
const OUTPUT_ITEMS = new Set(["function_call_output", "custom_tool_call_output"])
/** Records with nothing to replay: events echo the response items. */
// 0.17x adds `world_state` and `token_usage_record` lines: the harness's state and counters, not the conversation.
const SILENT_TYPES = new Set(["event_msg", "state", "world_state", "token_usage_record"])
/** Response items that are bookkeeping of the harness (its undo snapshots), not the conversation. */
const SILENT_ITEMS = new Set(["ghost_snapshot"])

/** User-role messages Codex writes itself (the environment, AGENTS.md): context, not a turn. */
const HARNESS_CONTEXT = /^\s*(?:<(?:environment_context|user_instructions)>|# AGENTS\.md instructions for )/

/** A call whose result is yet to come: what the result needs to know about it. */
interface OpenCall {
  readonly name: string
  readonly patch?: string
}

/** A reply that has ended, with the outputs of its calls, waiting for its `token_count`. */
interface HeldStep {
  readonly draft: StepDraft
  readonly results: Array<Omit<TraceToolResult, "type">>
}

/** The error of a turn that failed on the model: `task_complete.error` (0.17x), or an `error` event. */
const turnError = (payload: JsonObject | undefined): TraceError | undefined => {
  const type = str(payload, "type")
  const error = type === "task_complete" ? obj(payload, "error") : type === "error" ? payload : undefined
  const message = str(error, "message")
  if (message === undefined) return undefined
  const info = error?.["codex_error_info"]
  return typeof info === "string" ? { message, code: info } : { message }
}

class CodexReader extends JsonLinesReader {
  private draft: StepDraft | null = null
  private held: HeldStep | null = null
  private readonly calls = new Map<string, OpenCall>()
  /** The message of the error step last written, while nothing followed it: the same error told twice is one step. */
  private lastError: string | undefined

  protected finish(): void {
    this.flush()
    this.release()
  }

  protected record(o: JsonObject, line: number): void {
    const type = str(o, "type")
    const payload = obj(o, "payload")
    if (type === "session_meta") return this.b.session(line, { id: str(payload, "id"), agent: str(payload, "originator") })
    if (type === "turn_context") return this.b.session(line, { model: str(payload, "model") })
    // 0.17x marks the reply to a compaction request (the summary) `compaction_output`: no step.
    if (type === "response_item" && obj(o, "metadata")?.["compaction_output"] === true) return this.compaction()
    if (type === "response_item" && payload !== undefined) return this.item(payload, line)
    if (type === "compacted") return this.compaction(str(payload, "message") ?? str(o, "message"))
    if (type === "event_msg") return this.event(payload, line)
    if (type === undefined && o["record_type"] === undefined && str(o, "id") !== undefined) return this.b.session(line, { id: str(o, "id") })
    if (type !== undefined && SILENT_TYPES.has(type)) return
    if (o["record_type"] !== undefined) return
    // Older rollouts: the item itself on the line.
    if (type !== undefined && (REPLY_ITEMS.has(type) || OUTPUT_ITEMS.has(type) || type === "message")) return this.item(o, line)
    this.b.skipped(line, `record "${type ?? "?"}" is not part of a Codex rollout's conversation`)
  }

  private event(payload: JsonObject | undefined, line: number): void {
    const error = turnError(payload)
    if (error !== undefined) return this.failed(error, line)
    if (str(payload, "type") !== "token_count") return
    // The open reply's usage, or (0.17x, after the outputs) that of the reply just ended.
    const target = this.draft ?? this.held?.draft
    if (target === undefined || target.usage !== undefined) return
    const usage = usageOf(obj(obj(payload, "info"), "last_token_usage"))
    if (usage === undefined) return
    target.usage = usage
    if (this.draft === null) this.release()
  }

  /** A turn the model failed: a step of its own holding the error (unless the same error was just told). */
  private failed(error: TraceError, line: number): void {
    this.flush()
    this.release()
    if (this.lastError === error.message) return
    const d = newDraft(line)
    d.error = error
    d.finish = "error"
    this.b.assistant(d)
    this.lastError = error.message
  }

  /**
   * A compaction: it ends the open reply. A reply of text alone that the compacted record quotes (its
   * summary, in versions that do not mark it) is left out: the harness's bookkeeping, not the run's answer.
   */
  private compaction(message?: string): void {
    const d = this.draft
    if (d !== null && message !== undefined && d.toolCalls.length === 0 && d.text !== "" && message.endsWith(d.text)) this.draft = null
    this.flush()
    this.release()
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
    return (this.draft ??= this.newReply(line))
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
      this.draft ??= this.newReply(line)
      this.draft.text = joinText(this.draft.text, text)
      return
    }
    this.flush()
    this.release()
    this.lastError = undefined
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
    const result = {
      ...r,
      ...(out.exitCode !== undefined ? { exitCode: out.exitCode } : {}),
      ...(out.error !== undefined ? { error: out.error } : {}),
      ...(files.length > 0 ? { path: files[0]!, diff: call!.patch! } : {})
    }
    if (this.held !== null) this.held.results.push(result)
    else this.b.result(result)
  }

  /** A new reply begins: the one held for its usage is written first. */
  private newReply(line: number): StepDraft {
    this.release()
    this.lastError = undefined
    return newDraft(line)
  }

  /** The open reply has ended: held, with the outputs that follow, until its usage or the next reply. */
  private flush(): void {
    if (this.draft === null) return
    this.release()
    this.held = { draft: this.draft, results: [] }
    this.draft = null
  }

  /** Writes the held reply and its outputs. */
  private release(): void {
    if (this.held === null) return
    this.b.assistant(this.held.draft)
    for (const r of this.held.results) this.b.result(r)
    this.held = null
  }
}

/** A `token_count` event's `last_token_usage` as trace v1 usage. */
const usageOf = (u: JsonObject | undefined): Usage | undefined => {
  if (u === undefined) return undefined
  const field = (key: string, name: keyof Usage) => (num(u, key) !== undefined ? { [name]: num(u, key)! } : {})
  return {
    ...field("input_tokens", "inputTokens"),
    ...field("output_tokens", "outputTokens"),
    ...field("total_tokens", "totalTokens"),
    ...field("reasoning_output_tokens", "reasoningTokens"),
    ...field("cached_input_tokens", "cachedInputTokens")
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
