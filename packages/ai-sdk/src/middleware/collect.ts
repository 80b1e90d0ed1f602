/**
 * A guarded stream folded into what `doGenerate` returns, so `generateText` gets the same guard:
 * the middleware streams the call, and the caller still receives one result.
 */
import { APICallError } from "ai"
import type { Content, FinishPart, GenerateResult, StreamPart, StreamResult } from "./model-types.js"

/** Parts that are already content as they stand. */
const CONTENT_TYPES = new Set(["tool-call", "tool-result", "tool-approval-request", "file", "reasoning-file", "source", "custom"])

/**
 * A stream's error part as `doGenerate` would have thrown it: an Error as it is; anything else (a
 * provider's error event mid-stream, a plain `{ type: "overloaded_error", message, isRetryable }`)
 * as the API call error it reports, retryable when it says so, so `generateText`'s own retries see
 * it and the caller gets an Error with a message, not `[object Object]`.
 */
const thrownOf = (error: unknown): unknown => {
  if (error instanceof Error) return error
  const fields = typeof error === "object" && error !== null ? (error as Record<string, unknown>) : {}
  const nested = typeof fields["error"] === "object" && fields["error"] !== null ? (fields["error"] as Record<string, unknown>) : {}
  const said = [fields["message"], nested["message"]].find((m): m is string => typeof m === "string" && m !== "")
  const message = said ?? (typeof error === "string" ? error : (JSON.stringify(error) ?? String(error)))
  const statusCode = typeof fields["statusCode"] === "number" ? fields["statusCode"] : undefined
  return new APICallError({ message, url: "", requestBodyValues: {}, ...(statusCode !== undefined ? { statusCode } : {}), isRetryable: fields["isRetryable"] === true, data: error })
}

/** Throws the stream's error part, as `doGenerate` would have thrown it (`thrownOf`). */
export const collectGenerateResult = async (result: StreamResult): Promise<GenerateResult> => {
  const content: Array<Content> = []
  // Text and reasoning blocks by id, in the order they started.
  const blocks = new Map<string, { type: "text" | "reasoning"; text: string }>()
  let finish: FinishPart | undefined
  let warnings: GenerateResult["warnings"] = []
  let meta: { id?: string; timestamp?: Date; modelId?: string } = {}

  const append = (key: string, type: "text" | "reasoning", delta: string) => {
    let block = blocks.get(key)
    if (block === undefined) {
      block = { type, text: "" }
      blocks.set(key, block)
      content.push(block as Content)
    }
    block.text += delta
  }

  const reader = result.stream.getReader()
  while (true) {
    const next = await reader.read()
    if (next.done) break
    const part: StreamPart = next.value
    if (part.type === "text-delta") append(`t:${part.id}`, "text", part.delta)
    else if (part.type === "reasoning-delta") append(`r:${part.id}`, "reasoning", part.delta)
    else if (part.type === "finish") finish = part
    else if (part.type === "stream-start") warnings = part.warnings
    else if (part.type === "response-metadata") meta = part
    else if (part.type === "error") throw thrownOf(part.error)
    else if (CONTENT_TYPES.has(part.type)) content.push(part as Content)
  }

  return {
    content,
    finishReason: finish?.finishReason ?? { unified: "other", raw: undefined },
    usage: finish?.usage ?? {
      inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: undefined, text: undefined, reasoning: undefined }
    },
    ...(finish?.providerMetadata !== undefined ? { providerMetadata: finish.providerMetadata } : {}),
    ...(result.request !== undefined ? { request: result.request } : {}),
    response: {
      ...(meta.id !== undefined ? { id: meta.id } : {}),
      ...(meta.timestamp !== undefined ? { timestamp: meta.timestamp } : {}),
      ...(meta.modelId !== undefined ? { modelId: meta.modelId } : {}),
      ...(result.response?.headers !== undefined ? { headers: result.response.headers } : {})
    },
    warnings
  }
}
