/**
 * The Gemini API (`POST …/models/{model}:streamGenerateContent?alt=sse` and `:generateContent`):
 * what Gemini CLI speaks. Unlike the others it names the model and whether the reply streams in the
 * path, so a protocol value is made per request (`geminiProtocol`). A function call arrives whole
 * (its arguments one object), and a call's result answers it by name (and id, when there is one).
 * A request for structured output (a JSON response type or schema: Gemini CLI's routing and
 * next-speaker checks) is not an agent step: it is passed on unjudged. Calls written as text become
 * function calls with `proxy.textToolCalls`, as in the other protocols.
 */
import { estimateTokens } from "@loopguard/core/context"
import { HistoryBuilder, inputOf, type WireCall } from "../history.js"
import { carriesError, conversationOf, offersTools, parseJson, SSE_CONTENT_TYPE, type ObservedCall, type Protocol, type Seen, type StreamWatch, type TextCall, UNREADABLE } from "../protocol.js"
import { eventsOf, type SseEvent } from "../sse.js"
import { spliced } from "./chat.js"
import { geminiStatus } from "../error-kinds.js"

/** Both spellings the REST API takes (the SDKs send camelCase; proto3 JSON also reads snake_case). */
const field = (o: any, camel: string, snake: string): any => o?.[camel] ?? o?.[snake]

const partsOf = (content: any): ReadonlyArray<any> => (Array.isArray(content?.parts) ? content.parts : [])

/** The text of the parts that are (or are not) thoughts. */
const textOfParts = (parts: ReadonlyArray<any>, thought = false): string =>
  parts.map((p) => (typeof p?.text === "string" && (p.thought === true) === thought ? p.text : "")).join("")

const callOf = (part: any): any => field(part, "functionCall", "function_call")
const responseOf = (part: any): any => field(part, "functionResponse", "function_response")

/** A function response as the text of a tool result: its `output`, else its `error`, else the whole object. */
const resultOf = (response: any): { readonly text: string; readonly isError: boolean } => {
  const isError = response?.error !== undefined && response?.error !== null
  const value = typeof response?.output === "string" ? response.output : isError && typeof response.error === "string" ? response.error : JSON.stringify(response ?? {})
  return { text: value, isError }
}

/** Whether the request asks for JSON (a response type or schema). */
const asksForJson = (body: any): boolean => {
  const config = field(body, "generationConfig", "generation_config")
  return field(config, "responseMimeType", "response_mime_type") === "application/json" || field(config, "responseSchema", "response_schema") !== undefined || field(config, "responseJsonSchema", "response_json_schema") !== undefined
}

/**
 * Calls without ids (most Gemini models give none) get one from their place; a result takes the id
 * it names, else the oldest call of that name still unanswered.
 */
class CallIds {
  private readonly open = new Map<string, Array<string>>()

  forCall(call: any, at: number, n: number): WireCall {
    const name = String(call?.name ?? "")
    const id = typeof call?.id === "string" && call.id !== "" ? call.id : `gemini-${at}-${n}`
    this.open.set(name, [...(this.open.get(name) ?? []), id])
    return { id, name, input: inputOf(call?.args) }
  }

  forResult(response: any): string {
    const name = String(response?.name ?? "")
    const open = this.open.get(name) ?? []
    const named = typeof response?.id === "string" && response.id !== "" ? response.id : undefined
    const id = named ?? open[0] ?? ""
    this.open.set(name, open.filter((o) => o !== id))
    return id
  }
}

const conversation = (body: any, model: string, stream: boolean): ReturnType<Protocol["conversation"]> => {
  const history = new HistoryBuilder()
  const ids = new CallIds()
  let firstUser: string | undefined
  const wire: ReadonlyArray<any> = Array.isArray(body?.contents) ? body.contents : []
  wire.forEach((content, at) => {
    const parts = partsOf(content)
    if (content?.role === "model") {
      const calls = parts.filter(callOf).map((p, n) => ids.forCall(callOf(p), at, n))
      history.assistant(at, { text: textOfParts(parts), reasoning: textOfParts(parts, true), calls })
      return
    }
    const results = parts.filter(responseOf)
    for (const r of results) {
      const { text, isError } = resultOf(responseOf(r).response)
      history.toolResult(ids.forResult(responseOf(r)), text, isError)
    }
    // A user turn that carries function responses is the harness answering calls, not a person's turn.
    if (results.length === 0) {
      const text = textOfParts(parts)
      firstUser ??= text
      history.user(at, text)
    }
  })
  const tools = (Array.isArray(body?.tools) ? body.tools : []).flatMap((t: any) => {
    const declared = field(t, "functionDeclarations", "function_declarations")
    return Array.isArray(declared) ? declared.map((d: any) => String(d?.name ?? "")) : []
  })
  const system = textOfParts(partsOf(field(body, "systemInstruction", "system_instruction")))
  return { ...conversationOf(body, { system, firstUser, messages: history.messages, wireLength: wire.length, tools, structured: asksForJson(body) }), model, stream }
}

const geminiEvent = (payload: object): string => `data: ${JSON.stringify(payload)}\r\n\r\n`

const usageOf = (body: any, completion: string) => {
  const prompt = estimateTokens(JSON.stringify(body?.contents ?? []))
  const candidates = estimateTokens(completion)
  return { promptTokenCount: prompt, candidatesTokenCount: candidates, totalTokenCount: prompt + candidates }
}

/** The one-candidate reply the proxy writes itself (a stop answer, a cut's notice). */
const replyOf = (text: string, usage: object, identity: object) => ({ candidates: [{ content: { role: "model", parts: [{ text }] }, finishReason: "STOP", index: 0 }], usageMetadata: usage, ...identity })

/** The `n`th call of a reply as observed; its arguments come whole, as an object: kept as their JSON text, which is always whole. */
const observedCall = (call: any, n: number): ObservedCall => ({ id: String(call.id ?? `gemini-call-${n}`), name: String(call.name ?? ""), args: JSON.stringify(call.args ?? {}) })

class GeminiWatch implements StreamWatch {
  text = ""
  reasoning = ""
  finish: string | undefined
  private readonly callList: Array<ObservedCall> = []
  private identity: { modelVersion?: string; responseId?: string } = {}

  constructor(private readonly body: any) {}

  get calls(): ReadonlyArray<ObservedCall> {
    return this.callList
  }

  /** The usage of the reply so far, estimated from the request and what arrived. */
  estimatedUsage(): object {
    return usageOf(this.body, this.reasoning + this.text)
  }

  /** The upstream's model version and response id, for events the proxy writes into its reply. */
  identityOf(): { modelVersion?: string; responseId?: string } {
    return this.identity
  }

  see(event: SseEvent): Seen {
    const e = parseJson(event.data)
    if (e === undefined) return UNREADABLE
    if (e === null || typeof e !== "object") return {}
    if (carriesError(e)) return { error: true }
    if (this.identity.responseId === undefined && typeof e.responseId === "string") this.identity = { modelVersion: e.modelVersion, responseId: e.responseId }
    const candidate = Array.isArray(e.candidates) ? e.candidates[0] : undefined
    if (candidate === undefined) return this.blocked(e)
    let text = ""
    let reasoning = ""
    let toolCall = false
    for (const part of partsOf(candidate.content)) {
      const call = callOf(part)
      if (call !== undefined && call !== null) {
        toolCall = true
        this.callList.push(observedCall(call, this.callList.length))
      } else if (typeof part?.text === "string") {
        if (part.thought === true) reasoning += part.text
        else text += part.text
      }
    }
    this.text += text
    this.reasoning += reasoning
    const finish = field(candidate, "finishReason", "finish_reason")
    if (typeof finish === "string") this.finish = finish
    // Gemini has no end event of its own: the event that names the finish is the last that matters.
    const ends = typeof finish === "string"
    return { ...(text !== "" ? { text } : {}), ...(reasoning !== "" ? { reasoning } : {}), ...(toolCall ? { toolCall } : {}), ...(ends ? { finishing: true, end: true } : {}) }
  }

  /**
   * An event without a candidate: a prompt the API blocked (`promptFeedback.blockReason`) is the
   * whole answer (it ends the reply as it came, never retried: the same prompt is blocked again).
   */
  private blocked(e: any): Seen {
    const reason = field(field(e, "promptFeedback", "prompt_feedback"), "blockReason", "block_reason")
    if (typeof reason !== "string") return {}
    this.finish = reason
    return { finishing: true, end: true }
  }

  close(notice: string): string {
    return geminiEvent(replyOf(notice, usageOf(this.body, this.reasoning + this.text + notice), this.identity))
  }
}

/** The Gemini protocol for one request: its model and whether it streams come from the path. */
export const geminiProtocol = (model: string, stream: boolean): Protocol => ({
  name: "gemini",
  conversation: (body) => conversation(body, model, stream),
  mapAssistantText: (body, f) => {
    if (!Array.isArray(body?.contents)) return body
    const contents = body.contents.map((c: any) => {
      if (c?.role !== "model") return c
      const parts = partsOf(c)
      const next = f(textOfParts(parts))
      if (next === null) return c
      // Thoughts of a cut reply go with it; the calls stay, their thought signatures with them.
      return { ...c, parts: [{ text: next }, ...parts.filter(callOf)] }
    })
    return { ...body, contents }
  },
  withoutTools: (body) => {
    if (!offersTools(body)) return body
    // The body's own spelling (camelCase or snake_case) is kept: a key in the other would be a second, conflicting one.
    if (body.tool_config !== undefined && body.toolConfig === undefined) return { ...body, tool_config: { ...body.tool_config, function_calling_config: { mode: "NONE" } } }
    return { ...body, toolConfig: { ...(body.toolConfig ?? {}), functionCallingConfig: { mode: "NONE" } } }
  },
  insertUserText: (body, before, text) => {
    const contents: Array<any> = Array.isArray(body?.contents) ? [...body.contents] : []
    const at = before === null ? contents.length - 1 : before - 1
    const host = contents[at]
    // After the user's own turn (or the function responses), the reminder joins that turn as one more part.
    if (host?.role === "user") contents[at] = { ...host, parts: [...partsOf(host), { text }] }
    else return { ...body, contents: spliced(contents, at + 1, { role: "user", parts: [{ text }] }) }
    return { ...body, contents }
  },
  watch: (body) => new GeminiWatch(body),
  replyText: (json) => textOfParts(partsOf(json?.candidates?.[0]?.content)),
  withReplyText: (json, text) => {
    const [first, ...others] = Array.isArray(json?.candidates) ? json.candidates : [{}]
    const calls = partsOf(first?.content).filter(callOf)
    return { ...json, candidates: [{ ...first, content: { role: "model", ...first?.content, parts: [{ text }, ...calls] }, finishReason: "STOP" }, ...others] }
  },
  // The calls of a whole reply arrive parsed (`args`), so they are never cut off; they are read
  // for the tool caps and the session's record.
  wholeCalls: {
    of: (json) =>
      partsOf(json?.candidates?.[0]?.content)
        .map(callOf)
        .filter((call: any) => call !== undefined && call !== null)
        .map(observedCall),
    refused: (json, text) => {
      const [first, ...others] = Array.isArray(json?.candidates) ? json.candidates : [{}]
      return { ...json, candidates: [{ ...first, content: { role: "model", ...first?.content, parts: [{ text }] }, finishReason: "STOP" }, ...others] }
    }
  },
  answer: (body, text) => {
    const reply = replyOf(text, usageOf(body, text), { modelVersion: model, responseId: `loopguard-${Date.now().toString(36)}` })
    return stream ? { contentType: SSE_CONTENT_TYPE, body: geminiEvent(reply) } : { contentType: "application/json", body: JSON.stringify(reply) }
  },
  // As an event (the AI SDK's Google provider reads it), then as a bare JSON line, which event-stream
  // readers skip: the Gemini API's own SDK (Gemini CLI's) reads no error event, and took a reply
  // ending in one for a reply without its finish (exit 0, the partial text printed); a line that is
  // no event at the end of the stream is an error to it.
  streamError: (message, cause) => {
    const status = cause?.status
    const error = { error: { code: status ?? 500, message, status: status === undefined ? "INTERNAL" : geminiStatus(status) } }
    return `${geminiEvent(error)}${JSON.stringify(error)}\n`
  },
  textCalls: {
    streamEnd: (watch, held, calls) => {
      // The finish rides on the upstream's last events, with the last of the text: that text still
      // goes out, then the calls with the finish (and the upstream's usage, when it sent one).
      const sent = eventsOf(held).map((e) => parseJson(e.data))
      const parts = sent.flatMap((e) => partsOf(e?.candidates?.[0]?.content)).filter((p) => typeof p?.text === "string" && p.text !== "")
      const w = watch as GeminiWatch
      const usage = sent.map((e) => e?.usageMetadata).filter((u) => u !== undefined).at(-1) ?? w.estimatedUsage()
      const identity = w.identityOf()
      const text = parts.length === 0 ? "" : geminiEvent({ candidates: [{ content: { role: "model", parts }, index: 0 }], ...identity })
      return text + geminiEvent({ candidates: [{ content: { role: "model", parts: functionCalls(calls) }, finishReason: "STOP", index: 0 }], usageMetadata: usage, ...identity })
    },
    json: (json, calls, prose) => {
      const [first, ...others] = Array.isArray(json?.candidates) ? json.candidates : [{}]
      const parts = partsOf(first?.content)
      if (parts.some(callOf)) return null
      // Thoughts stay first, as the model wrote them; the text without the markup, then the calls.
      const thoughts = parts.filter((p) => p?.thought === true)
      const content = { role: "model", ...first?.content, parts: [...thoughts, ...(prose === "" ? [] : [{ text: prose }]), ...functionCalls(calls)] }
      return { ...json, candidates: [{ ...first, content, finishReason: "STOP" }, ...others] }
    }
  }
})

/** Calls the model wrote as text, as Gemini function-call parts (Gemini gives its calls no id). */
const functionCalls = (calls: ReadonlyArray<TextCall>) => calls.map((c) => ({ functionCall: { name: c.name, args: c.arguments } }))

/**
 * The Gemini request a path and query name: `…/models/{model}:streamGenerateContent` with
 * `alt=sse` (without it the reply is a JSON array, passed on as it is) or `…:generateContent`.
 */
export const geminiRequestOf = (path: string, query: string): { readonly model: string; readonly stream: boolean } | null => {
  const m = /\/models\/([^/:]+):(streamGenerateContent|generateContent)$/.exec(path)
  if (m === null) return null
  const stream = m[2] === "streamGenerateContent"
  if (stream && new URLSearchParams(query).get("alt") !== "sse") return null
  let model = m[1]!
  try {
    model = decodeURIComponent(model)
  } catch {
    // A malformed escape: the model name as written.
  }
  return { model, stream }
}
