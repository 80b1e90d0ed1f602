/**
 * Claude Code session files (~/.claude/projects/<project>/<session>.jsonl): one JSON object per
 * line. `user` and `assistant` lines carry an Anthropic message; one reply is often written as
 * several lines (one per content block) sharing `message.id`, which make one step. Tool results
 * are `tool_result` blocks of the next user line, with the tool's own record in `toolUseResult`
 * (an edit's `structuredPatch` becomes the result's diff). Sub-agent lines (`isSidechain`) belong
 * to another agent's run: a file of the main agent leaves them out (noted once), a sub-agent's
 * own file is read from them. The stream `claude -p --output-format stream-json` prints reads the
 * same (its `system` init line names the session and model; sub-agent lines carry a
 * `parent_tool_use_id`). A server tool's call (`server_tool_use`, a web search the API runs) has its
 * result in the same reply (`web_search_tool_result` and the like).
 */
import type { JsonObject } from "../fields.js"
import { isJsonObject } from "../fields.js"
import type { TraceFinish } from "../types.js"
import { newDraft, joinText, type StepDraft } from "./builder.js"
import { arr, exitCodeIn, num, obj, str, textOf } from "./json-line.js"
import { JsonLinesReader } from "./json-lines-reader.js"
import type { TraceReader } from "./reader.js"
import { structuredPatchDiff } from "./unified-diff.js"

/** Line types that hold no conversation (titles, file snapshots, queue bookkeeping). */
// Bookkeeping lines, not turns; newer versions (2.1.3xx) add their attachments, request records and cost state,
// the session's title, agent name, modes, PR link, content replacements and worktree.
const SILENT_TYPES = new Set([
  "summary", "system", "file-history-snapshot", "queue-operation", "progress", "custom-title", "tag", "result",
  "attachment", "api-request", "api-request-blob", "api-request-shape", "last-prompt", "atis-latch", "tools-used", "cost-state",
  "mode", "ai-title", "agent-name", "permission-mode", "pr-link", "content-replacement", "worktree-state"
])

/** A sub-agent's line: marked in session files, named by its parent call in the stream-json output. */
const isSidechain = (o: JsonObject): boolean => o["isSidechain"] === true || typeof o["parent_tool_use_id"] === "string"

const FINISH: Readonly<Record<string, TraceFinish>> = { end_turn: "stop", stop_sequence: "stop", tool_use: "tool-calls", max_tokens: "length", refusal: "content-filter", pause_turn: "other" }

const usageOf = (u: JsonObject | undefined) => {
  if (u === undefined) return undefined
  const input = num(u, "input_tokens") ?? 0
  const cacheRead = num(u, "cache_read_input_tokens") ?? 0
  const cacheWrite = num(u, "cache_creation_input_tokens") ?? 0
  const output = num(u, "output_tokens") ?? 0
  return { inputTokens: input + cacheRead + cacheWrite, outputTokens: output, totalTokens: input + cacheRead + cacheWrite + output, cachedInputTokens: cacheRead }
}

/** A server tool's result block (`web_search_tool_result`, `web_fetch_tool_result`, …): its text and whether it failed. */
const serverToolOutput = (block: JsonObject): { readonly output: string; readonly error: boolean } => {
  const content = block["content"]
  if (isJsonObject(content)) {
    const failed = /_error$/.test(str(content, "type") ?? "")
    return { output: str(content, "error_code") ?? textOf(content), error: failed }
  }
  const items = (Array.isArray(content) ? content : []).filter(isJsonObject)
  return { output: items.map((i) => [str(i, "title"), str(i, "url")].filter((x) => x !== undefined).join(" ") || textOf(i)).join("\n"), error: false }
}

/** FNV-1a over a text's UTF-16 units: a cheap fingerprint of an entry, to tell one written again. */
const hashOf = (text: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  return h >>> 0
}

class ClaudeCodeReader extends JsonLinesReader {
  private draft: StepDraft | null = null
  private draftId: string | undefined
  private sidechainFile: boolean | undefined
  private skipped = { count: 0, first: 0 }
  private readonly toolNames = new Map<string, string>()
  private readonly heldResults: Array<() => void> = []
  /** Each entry's `uuid` with a hash of the entry, and the lines that wrote an entry again. */
  private readonly entries = new Map<string, number>()
  private repeated = { count: 0, first: 0 }

  protected finish(): void {
    this.flush()
    if (this.skipped.count > 0) {
      this.b.note(this.skipped.first, `${this.skipped.count} sub-agent (isSidechain) lines left out: they are another agent's run (its Task call's result stands for it here)`)
    }
    if (this.repeated.count > 0) {
      this.b.note(this.repeated.first, `${this.repeated.count} lines write again an entry written before (the same uuid): read once, as the conversation had it`)
    }
  }

  /**
   * Whether the line writes again an entry the file already holds: some Claude Code versions write a
   * session's earlier entries again on each turn (stream-json input), and read twice they made a
   * healthy run look like one that replays its own steps.
   */
  private writtenBefore(o: JsonObject, line: number): boolean {
    const uuid = str(o, "uuid")
    if (uuid === undefined) return false
    // The same uuid with other content is another entry (a hand-written log may reuse one): kept.
    const hash = hashOf(JSON.stringify(o))
    if (this.entries.get(uuid) !== hash) {
      this.entries.set(uuid, hash)
      return false
    }
    if (this.repeated.count++ === 0) this.repeated.first = line
    return true
  }

  protected record(o: JsonObject, line: number): void {
    const type = str(o, "type")
    if (type === "user" || type === "assistant") {
      if (this.writtenBefore(o, line) || !this.inRun(o, line) || o["isMeta"] === true) return
      this.b.session(line, { id: str(o, "sessionId") ?? str(o, "session_id"), agent: isSidechain(o) ? "sidechain" : undefined })
      if (type === "assistant") this.assistantLine(o, line)
      else this.userLine(o, line)
      return
    }
    if (type === "system" && str(o, "subtype") === "init") return this.b.session(line, { id: str(o, "session_id"), model: str(o, "model") })
    if (type !== undefined && SILENT_TYPES.has(type)) return
    if (type === undefined) this.b.note(line, `no "type": not a Claude Code record; line skipped`)
    else this.b.skipped(line, `line type "${type}" is not part of the conversation`)
  }

  /** Whether the line belongs to the run this file is read as (the first message decides). */
  private inRun(o: JsonObject, line: number): boolean {
    const side = isSidechain(o)
    this.sidechainFile ??= side
    if (side === this.sidechainFile) return true
    if (this.skipped.count++ === 0) this.skipped.first = line
    return false
  }

  private assistantLine(o: JsonObject, line: number): void {
    const m = obj(o, "message")
    const id = str(m, "id")
    if (this.draft === null || id === undefined || id !== this.draftId) {
      this.flush()
      this.draft = newDraft(line)
      this.draftId = id
    }
    const d = this.draft
    this.b.session(line, { model: str(m, "model") })
    const content = m?.["content"]
    if (typeof content === "string") d.text = joinText(d.text, content)
    else for (const block of Array.isArray(content) ? content : []) this.assistantBlock(d, block, line)
    const stop = str(m, "stop_reason")
    if (stop !== undefined) d.finish = Object.hasOwn(FINISH, stop) ? FINISH[stop]! : "other"
    const usage = usageOf(obj(m, "usage"))
    if (usage !== undefined) d.usage = usage
    if (o["isApiErrorMessage"] === true) d.error = { message: textOf(content) || "API error" }
  }

  private assistantBlock(d: StepDraft, block: unknown, line: number): void {
    if (!isJsonObject(block)) return
    const type = str(block, "type")
    if (type === "text") d.text = joinText(d.text, str(block, "text") ?? "")
    else if (type === "thinking") d.reasoning = joinText(d.reasoning, str(block, "thinking") ?? "")
    else if (type === "redacted_thinking") return
    else if (type === "tool_use" || type === "server_tool_use") {
      const id = str(block, "id")
      const name = str(block, "name")
      if (id === undefined || name === undefined) return this.b.note(line, `tool_use block without "id" or "name"; call skipped`)
      this.toolNames.set(id, name)
      d.toolCalls.push({ id, name, input: block["input"] ?? {} })
    } else if (type !== undefined && type.endsWith("_tool_result") && str(block, "tool_use_id") !== undefined) {
      const id = str(block, "tool_use_id")!
      const name = this.toolNames.get(id)
      this.heldResults.push(() => this.b.result({ line, id, ...serverToolOutput(block), ...(name !== undefined ? { name } : {}) }))
    } else this.b.note(line, `assistant content block "${type ?? "?"}" has no trace v1 counterpart; skipped`)
  }

  /**
   * Tool results are held with the reply they answer until that reply is done: Claude Code may
   * write a reply's next block (another call of the same message) after a result of its first.
   */
  private userLine(o: JsonObject, line: number): void {
    const content = obj(o, "message")?.["content"]
    const blocks = Array.isArray(content) ? content : []
    const results = blocks.filter((b) => isJsonObject(b) && b["type"] === "tool_result")
    const text = typeof content === "string" ? content : blocks.filter((b) => isJsonObject(b) && b["type"] === "text").map(textOf).join("\n")
    const record = results.length === 1 ? o["toolUseResult"] : undefined
    for (const r of results) this.heldResults.push(() => this.toolResult(r as JsonObject, line, record))
    if (text.trim() !== "") {
      this.flush()
      this.b.user(line, text)
    }
  }

  private toolResult(r: JsonObject, line: number, record: unknown): void {
    const id = str(r, "tool_use_id")
    if (id === undefined) return this.b.note(line, `tool_result block without "tool_use_id"; skipped`)
    const name = this.toolNames.get(id)
    const output = textOf(r["content"])
    const error = r["is_error"] === true
    const exitCode = name === "Bash" ? (error ? exitCodeIn(output) : 0) : undefined
    const rec = isJsonObject(record) ? record : undefined
    const diff = rec === undefined ? undefined : structuredPatchDiff(str(rec, "filePath"), arr(rec, "structuredPatch"))
    this.b.result({
      line,
      id,
      output,
      error,
      ...(name !== undefined ? { name } : {}),
      ...(exitCode !== undefined ? { exitCode } : {}),
      ...(diff !== undefined && str(rec, "filePath") !== undefined ? { diff, path: str(rec, "filePath")! } : {})
    })
  }

  private flush(): void {
    if (this.draft !== null) this.b.assistant(this.draft)
    for (const emit of this.heldResults.splice(0)) emit()
    this.draft = null
    this.draftId = undefined
  }
}

export const claudeCodeReader = (file: string): TraceReader => new ClaudeCodeReader(file)
