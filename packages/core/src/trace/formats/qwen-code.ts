/**
 * Qwen Code session files (~/.qwen/projects/<project>/chats/<session>.jsonl): one JSON object per
 * line, `{uuid, parentUuid, sessionId, type, message, …}`, where `message` is the Gemini API's
 * content, `{role, parts}`. An `assistant` record is one step (text, `thought` parts as reasoning,
 * `functionCall`s; its `usageMetadata` and `model`); a `tool_result` record carries the
 * `functionResponse`s that answer the calls of the step before; a `user` record is the person's
 * turn. `system` records (compression checkpoints, titles, telemetry, …) hold no step, except the
 * telemetry of a failed model call (`qwen-code.api_error`): a step with that error, as the other
 * agents log one. Sub-agent records (`isSidechain`) are another agent's run: left out, noted once.
 */
import type { JsonObject } from "../fields.js"
import type { TraceError } from "../types.js"
import { newDraft } from "./builder.js"
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

/** The error of a model call the telemetry record `qwen-code.api_error` reports; undefined for any other record. */
const apiErrorOf = (o: JsonObject): TraceError | undefined => {
  const event = obj(obj(o, "systemPayload"), "uiEvent")
  if (str(o, "subtype") !== "ui_telemetry" || str(event, "event.name") !== "qwen-code.api_error") return undefined
  const status = num(event, "status_code")
  const name = str(event, "error_type")
  return { message: str(event, "error_message") ?? "API error", ...(name !== undefined ? { name } : {}), ...(status !== undefined ? { status } : {}) }
}

class QwenCodeReader extends JsonLinesReader {
  private open: Array<Call> = []
  private sidechain = { count: 0, first: 0 }

  protected finish(): void {
    if (this.sidechain.count > 0) this.b.note(this.sidechain.first, `${this.sidechain.count} sub-agent (isSidechain) records left out: they are another agent's run`)
  }

  protected record(o: JsonObject, line: number): void {
    const type = str(o, "type")
    if (type === "system") return this.system(o, line)
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

  private system(o: JsonObject, line: number): void {
    const error = apiErrorOf(o)
    if (error === undefined || o["isSidechain"] === true) return
    this.b.session(line, { id: str(o, "sessionId") })
    const d = newDraft(line)
    d.error = error
    d.finish = "error"
    this.b.assistant(d)
  }
}

export const qwenCodeReader = (file: string): TraceReader => new QwenCodeReader(file)
