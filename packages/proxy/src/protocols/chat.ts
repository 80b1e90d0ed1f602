/** OpenAI Chat Completions (`POST /v1/chat/completions`), streamed and not. */
import { estimateTokens } from "@loopguard/core/context"
import { HistoryBuilder, inputOf, textOfContent } from "../history.js"
import { carriesError, conversationOf, offersTools, JSON_FORMATS, parseJson, SSE_CONTENT_TYPE, type ObservedCall, type Protocol, type Seen, type StreamWatch, type TextCall, UNREADABLE } from "../protocol.js"
import { eventsOf, type SseEvent } from "../sse.js"
import { textCallIds } from "../text-calls.js"
import { openAiError } from "../error-kinds.js"

/** `list` with `item` inserted before position `before` (null: at the end). */
export const spliced = <A>(list: ReadonlyArray<A>, before: number | null, item: A): Array<A> =>
  before === null ? [...list, item] : [...list.slice(0, before), item, ...list.slice(before)]

const DONE = "data: [DONE]\n\n"
const data = (payload: unknown): string => `data: ${JSON.stringify(payload)}\n\n`

const wantsUsage = (body: any): boolean => body?.stream_options?.include_usage === true

const usageOf = (body: any, completion: string) => {
  const prompt = estimateTokens(JSON.stringify(body?.messages ?? []))
  const completionTokens = estimateTokens(completion)
  return { prompt_tokens: prompt, completion_tokens: completionTokens, total_tokens: prompt + completionTokens }
}

const conversation: Protocol["conversation"] = (body) => {
  const history = new HistoryBuilder()
  let system = ""
  let firstUser: string | undefined
  const wire: ReadonlyArray<any> = Array.isArray(body?.messages) ? body.messages : []
  wire.forEach((m, at) => {
    const role = m?.role
    if (role === "system" || role === "developer") system += textOfContent(m.content)
    else if (role === "user") {
      const text = textOfContent(m.content)
      firstUser ??= text
      history.user(at, text)
    } else if (role === "assistant") {
      const calls = (Array.isArray(m.tool_calls) ? m.tool_calls : []).map((c: any) => ({
        id: String(c?.id ?? ""),
        name: String(c?.function?.name ?? ""),
        input: inputOf(c?.function?.arguments)
      }))
      const reasoning = typeof m.reasoning_content === "string" ? m.reasoning_content : typeof m.reasoning === "string" ? m.reasoning : undefined
      history.assistant(at, { text: textOfContent(m.content), ...(reasoning !== undefined ? { reasoning } : {}), calls })
    } else if (role === "tool") history.toolResult(String(m.tool_call_id ?? ""), textOfContent(m.content))
  })
  return conversationOf(body, {
    system,
    firstUser,
    messages: history.messages,
    wireLength: wire.length,
    tools: (Array.isArray(body?.tools) ? body.tools : []).map((t: any) => String(t?.function?.name ?? t?.name ?? "")),
    structured: JSON_FORMATS.has(body?.response_format?.type)
  })
}

/**
 * Where a call delta without an `index` goes among its choice's calls (Google's OpenAI-compatible
 * endpoint sends none): one with an id seen before continues that call, one with a new id opens the
 * next call, one without an id continues the latest.
 */
const indexOf = (calls: ReadonlyMap<number, { readonly id: string }>, call: any): number => {
  const indexes = [...calls.keys()]
  if (indexes.length === 0) return 0
  const latest = Math.max(...indexes)
  if (typeof call?.id !== "string" || call.id === "") return latest
  for (const [index, known] of calls) if (known.id === call.id) return index
  return latest + 1
}

class ChatWatch implements StreamWatch {
  text = ""
  reasoning = ""
  finish: string | undefined
  readonly terminator = DONE
  /** Each choice's calls by their index (a request with `n` > 1 gets several choices, each with its own calls). */
  private readonly byChoice = new Map<number, Map<number, { id: string; name: string; args: string }>>()
  private seenIdentity: { id: string; created: number; model: string } | undefined
  /** The upstream's own usage, when a chunk carried it: what the reply was billed, kept when the proxy closes the reply itself. */
  private upstreamUsage: unknown

  constructor(private readonly body: any) {}

  get calls(): ReadonlyArray<ObservedCall> {
    return [...this.byChoice.values()].flatMap((calls) => [...calls.values()])
  }

  see(event: SseEvent): Seen {
    if (event.data === "[DONE]") return { end: true, last: true }
    const chunk = parseJson(event.data)
    if (chunk === undefined) return UNREADABLE
    if (chunk === null) return {}
    if (carriesError(chunk)) return { error: true }
    if (chunk.usage != null) this.upstreamUsage = chunk.usage
    this.seenIdentity ??= { id: String(chunk.id ?? "chatcmpl-loopguard"), created: Number(chunk.created ?? Math.floor(Date.now() / 1000)), model: String(chunk.model ?? this.body?.model ?? "") }
    const choices: ReadonlyArray<any> = Array.isArray(chunk.choices) ? chunk.choices : []
    const first = choices.find((c) => (c?.index ?? 0) === 0)
    let toolCall = false
    for (const choice of choices) toolCall = this.seeCalls(typeof choice?.index === "number" ? choice.index : 0, choice?.delta?.tool_calls) || toolCall
    if (first === undefined) return toolCall ? { toolCall } : {}
    // The guard and the finish read the first choice; the others pass as they came.
    const finishing = typeof first.finish_reason === "string" && first.finish_reason !== ""
    if (finishing) this.finish = first.finish_reason
    const delta = first.delta ?? {}
    const reasoning = typeof delta.reasoning_content === "string" ? delta.reasoning_content : typeof delta.reasoning === "string" ? delta.reasoning : ""
    const text = typeof delta.content === "string" ? delta.content : ""
    this.text += text
    this.reasoning += reasoning
    // Most events carry text and nothing else: one small object, not four spread into one.
    if (reasoning === "" && !toolCall && !finishing) return text !== "" ? { text } : {}
    return { ...(text !== "" ? { text } : {}), ...(reasoning !== "" ? { reasoning } : {}), ...(toolCall ? { toolCall } : {}), ...(finishing ? { finishing } : {}) }
  }

  /** One choice's call deltas added to its calls; whether there were any. */
  private seeCalls(choice: number, deltas: unknown): boolean {
    if (!Array.isArray(deltas) || deltas.length === 0) return false
    const calls = this.byChoice.get(choice) ?? new Map<number, { id: string; name: string; args: string }>()
    this.byChoice.set(choice, calls)
    for (const call of deltas) {
      const index = typeof call?.index === "number" ? call.index : indexOf(calls, call)
      const known = calls.get(index) ?? { id: "", name: "", args: "" }
      if (typeof call?.id === "string") known.id = call.id
      if (typeof call?.function?.name === "string") known.name += call.function.name
      if (typeof call?.function?.arguments === "string") known.args += call.function.arguments
      calls.set(index, known)
    }
    return true
  }

  /** The upstream's completion id, time and model (the proxy's own when none arrived yet). */
  get identity(): { id: string; created: number; model: string } {
    return this.seenIdentity ?? { id: "chatcmpl-loopguard", created: Math.floor(Date.now() / 1000), model: String(this.body?.model ?? "") }
  }

  close(notice: string): string {
    const who = this.identity
    const chunk = (delta: object, finish: string | null) => data({ ...who, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })
    let out = chunk({ content: notice }, null) + chunk({}, "stop")
    if (wantsUsage(this.body)) out += data({ ...who, object: "chat.completion.chunk", choices: [], usage: this.upstreamUsage ?? usageOf(this.body, this.reasoning + this.text + notice) })
    return out + DONE
  }
}

export const chatProtocol: Protocol = {
  name: "chat",
  conversation,
  mapAssistantText: (body, f) => {
    if (!Array.isArray(body?.messages)) return body
    const messages = body.messages.map((m: any) => {
      if (m?.role !== "assistant") return m
      const next = f(textOfContent(m.content))
      if (next === null) return m
      const { reasoning_content: _r, reasoning: _r2, ...rest } = m
      return { ...rest, content: next }
    })
    return { ...body, messages }
  },
  withoutTools: (body) => (offersTools(body) ? { ...body, tool_choice: "none" } : body),
  insertUserText: (body, before, text) => ({ ...body, messages: spliced(Array.isArray(body?.messages) ? body.messages : [], before, { role: "user", content: text }) }),
  watch: (body) => new ChatWatch(body),
  replyText: (json) => textOfContent(json?.choices?.[0]?.message?.content),
  withReplyText: (json, text) => {
    const [first, ...others] = json.choices
    return { ...json, choices: [{ ...first, message: { ...first.message, content: text }, finish_reason: "stop" }, ...others] }
  },
  wholeCalls: {
    // Every choice's calls (a request with `n` > 1 gets several): a cut-off call in any one is caught.
    of: (json) =>
      (Array.isArray(json?.choices) ? json.choices : []).flatMap((choice: any) =>
        (Array.isArray(choice?.message?.tool_calls) ? choice.message.tool_calls : []).map((c: any) => ({
          id: String(c?.id ?? ""),
          name: String(c?.function?.name ?? ""),
          args: typeof c?.function?.arguments === "string" ? c.function.arguments : JSON.stringify(c?.function?.arguments ?? {})
        }))
      ),
    // No choice keeps its calls: the notice goes in the first; the others end as text.
    refused: (json, text) =>
      ({
        ...json,
        choices: json.choices.map((choice: any, n: number) => {
          const { tool_calls: _calls, ...message } = choice?.message ?? {}
          return { ...choice, message: { ...message, role: "assistant", ...(n === 0 ? { content: text } : {}) }, finish_reason: "stop" }
        })
      })
  },
  answer: (body, text) => {
    const who = { id: `chatcmpl-loopguard-${Date.now().toString(36)}`, created: Math.floor(Date.now() / 1000), model: String(body?.model ?? "") }
    if (body?.stream !== true) {
      const message = { role: "assistant", content: text }
      return { contentType: "application/json", body: JSON.stringify({ ...who, object: "chat.completion", choices: [{ index: 0, message, finish_reason: "stop" }], usage: usageOf(body, text) }) }
    }
    const chunk = (delta: object, finish: string | null) => data({ ...who, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })
    let out = chunk({ role: "assistant", content: text }, null) + chunk({}, "stop")
    if (wantsUsage(body)) out += data({ ...who, object: "chat.completion.chunk", choices: [], usage: usageOf(body, text) })
    return { contentType: SSE_CONTENT_TYPE, body: out + DONE }
  },
  streamError: (message, cause) =>
    data({ error: { message, ...(cause?.status !== undefined ? openAiError(cause.status) : { type: "server_error", code: cause?.code ?? "upstream_error" }) } }) + DONE,
  textCalls: {
    streamEnd: (watch, held, calls) => {
      const who = (watch as ChatWatch).identity
      const chunk = (delta: object, finish: string | null) => data({ ...who, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })
      const callChunks = toolCalls(calls).map((call, index) => chunk({ tool_calls: [{ index, ...call }] }, null))
      // The upstream's usage chunk, when it sent one, still closes the reply.
      const usage = eventsOf(held).filter((e) => {
        const sent = parseJson(e.data)
        return sent?.usage != null && sent?.choices?.length === 0
      })
      return callChunks.join("") + chunk({}, "tool_calls") + usage.map((e) => e.raw).join("") + DONE
    },
    json: (json, calls, prose) => {
      const [first, ...others] = json.choices
      if (Array.isArray(first?.message?.tool_calls) && first.message.tool_calls.length > 0) return null
      return { ...json, choices: [{ ...first, message: { ...first.message, content: prose === "" ? null : prose, tool_calls: toolCalls(calls) }, finish_reason: "tool_calls" }, ...others] }
    }
  }
}

/** Calls the model wrote as text, as Chat Completions tool calls (ids of the proxy's own). */
const toolCalls = (calls: ReadonlyArray<TextCall>) => {
  const idOf = textCallIds()
  return calls.map((c, n) => ({ id: idOf("call_loopguard_text", n), type: "function", function: { name: c.name, arguments: JSON.stringify(c.arguments) } }))
}
