/**
 * pi session files (`~/.pi/agent/sessions/--<cwd>--/<time>_<id>.jsonl`, or under
 * `$PI_CODING_AGENT_DIR/sessions`): a header line `{type: "session", version, id, cwd}`, then one
 * entry per line, `{type, id, parentId, …}`. A `message` entry holds one message: `user`, an
 * `assistant` reply (one model call: `text`, `thinking` and `toolCall` blocks, its `usage`,
 * `stopReason` and `errorMessage`), a `toolResult` (`toolCallId`, `content`, `isError`; the bash
 * tool ends a failed command's text with "Command exited with code N", the edit tool keeps its diff
 * in `details.diff`), a `bashExecution` (a command the person ran with `!`) or an extension's
 * `custom` message. Settings, labels, compactions and extension state hold no step.
 *
 * The entries form a tree (`parentId`): going back with `/tree` starts a branch from an earlier
 * entry, appended to the same file. Every branch is read, in file order (the order things
 * happened); the first branch point is noted.
 */
import { isJsonObject, type JsonObject } from "../fields.js"
import type { TraceFinish } from "../types.js"
import { newDraft, joinText, type StepDraft } from "./builder.js"
import { num, obj, str, textOf } from "./json-line.js"
import { JsonLinesReader } from "./json-lines-reader.js"
import type { TraceReader } from "./reader.js"
import { numberedDiff } from "./unified-diff.js"

/** Entries with nothing to replay: settings, bookmarks, names, summaries, extension state. */
const SILENT_TYPES = new Set(["model_change", "thinking_level_change", "label", "session_info", "custom", "compaction", "branch_summary"])

const FINISH: Readonly<Record<string, TraceFinish>> = { stop: "stop", length: "length", toolUse: "tool-calls", error: "error", aborted: "other" }

/** A token count as the log gives it, when it is one (a whole number that is not absurd). */
const count = (u: JsonObject, key: string): number | undefined => {
  const n = num(u, key)
  return n !== undefined && Number.isSafeInteger(n) && n >= 0 ? n : undefined
}

/** pi's `input` leaves out what came from the cache (read or written); trace v1 counts all input. */
const usageOf = (u: JsonObject | undefined) => {
  if (u === undefined) return undefined
  const cacheRead = count(u, "cacheRead") ?? 0
  const input = (count(u, "input") ?? 0) + cacheRead + (count(u, "cacheWrite") ?? 0)
  const output = count(u, "output") ?? 0
  return { inputTokens: input, outputTokens: output, totalTokens: count(u, "totalTokens") ?? input + output, cachedInputTokens: cacheRead }
}

/** The exit status the bash tool appends to a failed command's output (a status, not any number). */
const exitCodeOf = (output: string): number | undefined => {
  const m = /Command exited with code (-?\d{1,6})\s*$/.exec(output.slice(-200))
  return m === null ? undefined : Number.parseInt(m[1]!, 10)
}

type Call = { readonly name: string; readonly input: unknown; answered: boolean }

class PiReader extends JsonLinesReader {
  private readonly calls = new Map<string, Call>()
  private lastId: string | undefined
  private branches = { count: 0, first: 0 }

  protected finish(): void {
    if (this.branches.count > 0) {
      this.b.note(this.branches.first, `the session branches here (${this.branches.count} branch point(s), /tree): every branch is read, in file order`)
    }
  }

  protected record(o: JsonObject, line: number): void {
    const type = str(o, "type")
    if (type === "session") return this.b.session(line, { id: str(o, "id") })
    this.follow(o, line)
    if (type === "message") return this.message(obj(o, "message"), line)
    if (type === "custom_message") return this.b.user(line, textOf(o["content"]))
    if (type !== undefined && SILENT_TYPES.has(type)) {
      if (type === "model_change") this.b.session(line, { model: str(o, "modelId") })
      return
    }
    if (type === undefined) this.b.note(line, `no "type": not a pi session entry; line skipped`)
    else this.b.skipped(line, `entry of type "${type}" is not part of the conversation`)
  }

  /** Tracks the tree: an entry whose parent is not the entry before it starts a branch. */
  private follow(o: JsonObject, line: number): void {
    const id = str(o, "id")
    if (id === undefined) return
    const parent = o["parentId"]
    if (this.lastId !== undefined && typeof parent === "string" && parent !== this.lastId && this.branches.count++ === 0) this.branches.first = line
    this.lastId = id
  }

  private message(m: JsonObject | undefined, line: number): void {
    const role = str(m, "role")
    if (m === undefined || role === undefined) return this.b.note(line, `message entry without a "message.role"; skipped`)
    switch (role) {
      case "user":
      case "custom":
      case "hookMessage":
        return this.b.user(line, textOf(m["content"]))
      case "assistant":
        return this.assistant(m, line)
      case "toolResult":
        return this.toolResult(m, line)
      case "bashExecution": {
        // A command the person ran (`!cmd`); `!!cmd` kept it from the model.
        if (m["excludeFromContext"] === true) return
        return this.b.user(line, [`!${str(m, "command") ?? ""}`, str(m, "output") ?? ""].filter((s) => s !== "").join("\n"))
      }
      case "branchSummary":
      case "compactionSummary":
        return
      default:
        return this.b.note(line, `message with role "${role}" skipped`)
    }
  }

  private assistant(m: JsonObject, line: number): void {
    const d: StepDraft = newDraft(line)
    const content = m["content"]
    if (typeof content === "string") d.text = content
    for (const block of Array.isArray(content) ? content : []) {
      if (!isJsonObject(block)) continue
      const type = str(block, "type")
      if (type === "text") d.text = joinText(d.text, str(block, "text") ?? "")
      else if (type === "thinking") d.reasoning = joinText(d.reasoning, str(block, "thinking") ?? "")
      else if (type === "toolCall") {
        const id = str(block, "id")
        const name = str(block, "name")
        if (id === undefined || name === undefined) {
          this.b.note(line, `toolCall block without "id" or "name"; call skipped`)
          continue
        }
        const input = block["arguments"] ?? {}
        this.calls.set(id, { name, input, answered: false })
        d.toolCalls.push({ id, name, input })
      } else this.b.note(line, `assistant content block "${type ?? "?"}" has no trace v1 counterpart; skipped`)
    }
    const stop = str(m, "stopReason")
    if (stop !== undefined) d.finish = Object.hasOwn(FINISH, stop) ? FINISH[stop]! : "other"
    const usage = usageOf(obj(m, "usage"))
    if (usage !== undefined) d.usage = usage
    const errorMessage = str(m, "errorMessage")
    if (stop === "error" || errorMessage !== undefined) d.error = { message: errorMessage ?? "error", ...(stop === "aborted" ? { name: "aborted" } : {}) }
    this.b.session(line, { model: str(m, "model") })
    this.b.assistant(d)
  }

  private toolResult(m: JsonObject, line: number): void {
    const id = str(m, "toolCallId")
    const call = id === undefined ? undefined : this.calls.get(id)
    if (id === undefined || call === undefined || call.answered) {
      return this.b.note(line, `tool result ${id === undefined ? 'without "toolCallId"' : `"${id}"`} answers no call before it; skipped`)
    }
    call.answered = true
    const name = str(m, "toolName") ?? call.name
    const output = textOf(m["content"])
    const error = m["isError"] === true
    const exitCode = name === "bash" ? (error ? exitCodeOf(output) : 0) : undefined
    const path = isJsonObject(call.input) ? str(call.input, "path") : undefined
    const numbered = error ? undefined : str(obj(m, "details"), "diff")
    const diff = numbered === undefined || path === undefined ? undefined : numberedDiff(path, numbered)
    this.b.result({
      line,
      id,
      name,
      output,
      error,
      ...(exitCode !== undefined ? { exitCode } : {}),
      ...(diff !== undefined && path !== undefined ? { diff, path } : {})
    })
  }
}

export const piReader = (file: string): TraceReader => new PiReader(file)
