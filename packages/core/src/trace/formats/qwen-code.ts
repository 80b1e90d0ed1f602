/**
 * Qwen Code session files (~/.qwen/projects/<project>/chats/<session>.jsonl): one JSON object per
 * line, `{uuid, parentUuid, sessionId, type, message, …}`, where `message` is the Gemini API's
 * content, `{role, parts}`. An `assistant` record is one step (text, `thought` parts as reasoning,
 * `functionCall`s; its `usageMetadata` and `model`); a `tool_result` record carries the
 * `functionResponse`s that answer the calls of the step before; a `user` record is the person's
 * turn. `system` records (compression checkpoints, titles, telemetry, …) hold no step. Sub-agent
 * records (`isSidechain`) are another agent's run: left out, noted once.
 */
import type { JsonObject } from "../fields.js"
import { arr, num, obj, str } from "./json-line.js"
import { modelTurnDraft, userTurn, type Call } from "./gemini-history.js"
import { JsonLinesReader } from "./json-lines-reader.js"
import type { TraceReader } from "./reader.js"

const usageOf = (u: JsonObject | undefined) =>
  u === undefined
    ? undefined
    : {
        inputTokens: num(u, "promptTokenCount") ?? 0,
        outputTokens: num(u, "candidatesTokenCount") ?? 0,
        totalTokens: num(u, "totalTokenCount") ?? 0,
        cachedInputTokens: num(u, "cachedContentTokenCount") ?? 0,
        reasoningTokens: num(u, "thoughtsTokenCount") ?? 0
      }

class QwenCodeReader extends JsonLinesReader {
  private open: Array<Call> = []
  private sidechain = { count: 0, first: 0 }

  protected finish(): void {
    if (this.sidechain.count > 0) this.b.note(this.sidechain.first, `${this.sidechain.count} sub-agent (isSidechain) records left out: they are another agent's run`)
  }

  protected record(o: JsonObject, line: number): void {
    const type = str(o, "type")
    if (type === "system") return
    if (o["isSidechain"] === true) {
      if (this.sidechain.count++ === 0) this.sidechain.first = line
      return
    }
    this.b.session(line, { id: str(o, "sessionId") })
    const parts = arr(obj(o, "message"), "parts")
    if (type === "assistant") {
      this.open = []
      const d = modelTurnDraft(parts, line, this.open)
      const usage = usageOf(obj(o, "usageMetadata"))
      if (usage !== undefined) d.usage = usage
      this.b.session(line, { model: str(o, "model") })
      this.b.assistant(d)
    } else if (type === "user" || type === "tool_result") userTurn(this.b, parts, line, this.open)
    else this.b.note(line, `record of type "${type ?? "?"}" skipped`)
  }
}

export const qwenCodeReader = (file: string): TraceReader => new QwenCodeReader(file)
