/** Anthropic Messages (`POST /v1/messages`), streamed and not: what Claude Code speaks. */
import { estimateTokens } from "@loopguard/core/context"
import { HistoryBuilder, inputOf, textOfContent } from "../history.js"
import { conversationOf, offersTools, JSON_FORMATS, parseJson, SSE_CONTENT_TYPE, type ObservedCall, type Protocol, type Seen, type StreamWatch, type TextCall, UNREADABLE } from "../protocol.js"
import { eventsOf, sseText } from "../sse.js"
import { textCallIds } from "../text-calls.js"
import { messagesType } from "../error-kinds.js"
import type { SseEvent } from "../sse.js"

const event = (type: string, payload: object): string => sseText(JSON.stringify({ type, ...payload }), type)

const blocksOf = (content: unknown): ReadonlyArray<any> => (typeof content === "string" ? [{ type: "text", text: content }] : Array.isArray(content) ? content : [])

const resultText = (content: unknown): string => (typeof content === "string" ? content : textOfContent(content))

const conversation: Protocol["conversation"] = (body) => {
  const history = new HistoryBuilder()
  const system = typeof body?.system === "string" ? body.system : textOfContent(body?.system)
  let firstUser: string | undefined
  const wire: ReadonlyArray<any> = Array.isArray(body?.messages) ? body.messages : []
  wire.forEach((m, at) => {
    const blocks = blocksOf(m?.content)
    if (m?.role === "user") {
      const results = blocks.filter((b) => b?.type === "tool_result")
      for (const r of results) history.toolResult(String(r.tool_use_id ?? ""), resultText(r.content), r.is_error === true)
      // A user message that carries tool results is the harness answering calls, not a person's turn.
      if (results.length === 0) {
        const text = textOfContent(blocks)
        firstUser ??= text
        history.user(at, text)
      }
    } else if (m?.role === "assistant") {
      const reasoning = blocks.map((b) => (b?.type === "thinking" && typeof b.thinking === "string" ? b.thinking : "")).join("")
      const calls = blocks.filter((b) => b?.type === "tool_use" || b?.type === "server_tool_use").map((b) => ({ id: String(b.id ?? ""), name: String(b.name ?? ""), input: inputOf(b.input) }))
      history.assistant(at, { text: textOfContent(blocks), reasoning, calls })
    }
  })
  return conversationOf(body, {
    system,
    firstUser,
    messages: history.messages,
    wireLength: wire.length,
    // Client tools only (no type, or "custom"): a server tool (web search…) runs at the provider, never as a tool_use the client gets.
    tools: (Array.isArray(body?.tools) ? body.tools : []).filter((t: any) => t?.type === undefined || t?.type === "custom").map((t: any) => String(t?.name ?? "")),
    // Structured outputs: the format has been sent at the top level and inside output_config.
    structured: JSON_FORMATS.has(body?.output_format?.type) || JSON_FORMATS.has(body?.output_config?.format?.type)
  })
}

const usageOf = (body: any, completion: string) => ({
  input_tokens: estimateTokens(JSON.stringify(body?.messages ?? []) + JSON.stringify(body?.system ?? "")),
  output_tokens: estimateTokens(completion)
})

class MessagesWatch implements StreamWatch {
  text = ""
  reasoning = ""
  finish: string | undefined
  readonly terminator = event("message_stop", {})
  private open: { index: number; type: string } | undefined
  /** The upstream's own usage from its `message_delta`, kept when the proxy closes the reply itself. */
  private upstreamUsage: unknown
  private lastIndex = -1
  /** Where the client's view stopped when calls are held back: the block state before the first call. */
  private beforeCalls: { readonly open: { index: number; type: string } | undefined; readonly lastIndex: number } | undefined
  private readonly blocks = new Map<number, { id: string; name: string; args: string }>()

  constructor(private readonly body: any) {}

  get calls(): ReadonlyArray<ObservedCall> {
    return [...this.blocks.values()]
  }

  see(ev: SseEvent): Seen {
    const e = parseJson(ev.data)
    if (e === undefined) return UNREADABLE
    if (e === null) return {}
    switch (e.type) {
      case "content_block_start": {
        const index = Number(e.index)
        if (e.content_block?.type === "tool_use" || e.content_block?.type === "server_tool_use") this.beforeCalls ??= { open: this.open, lastIndex: this.lastIndex }
        this.lastIndex = Math.max(this.lastIndex, index)
        this.open = { index, type: String(e.content_block?.type ?? "") }
        if (e.content_block?.type === "tool_use" || e.content_block?.type === "server_tool_use") {
          this.blocks.set(index, { id: String(e.content_block.id ?? ""), name: String(e.content_block.name ?? ""), args: "" })
          return { toolCall: true }
        }
        const text = typeof e.content_block?.text === "string" ? e.content_block.text : ""
        this.text += text
        return text !== "" ? { text } : {}
      }
      case "content_block_delta":
        return this.delta(Number(e.index), e.delta)
      case "content_block_stop":
        if (this.open?.index === Number(e.index)) this.open = undefined
        return {}
      case "message_delta":
        if (e.usage != null) this.upstreamUsage = e.usage
        if (typeof e.delta?.stop_reason !== "string") return {}
        this.finish = e.delta.stop_reason
        return { finishing: true }
      case "message_stop":
        return { end: true, last: true }
      case "error":
        return { error: true }
      default:
        return {}
    }
  }

  private delta(index: number, d: any): Seen {
    if (d?.type === "text_delta" && typeof d.text === "string") {
      this.text += d.text
      return { text: d.text }
    }
    if (d?.type === "thinking_delta" && typeof d.thinking === "string") {
      this.reasoning += d.thinking
      return { reasoning: d.thinking }
    }
    if (d?.type === "input_json_delta" && typeof d.partial_json === "string") {
      const call = this.blocks.get(index)
      if (call !== undefined) call.args += d.partial_json
      return { toolCall: true }
    }
    return {}
  }

  /** The index the next content block takes. */
  get nextIndex(): number {
    return this.lastIndex + 1
  }

  /** The block still open (a text block the upstream never stopped), if any. */
  get openIndex(): number | undefined {
    return this.open?.index
  }

  close(notice: string, callsDropped = false): string {
    const shown = callsDropped && this.beforeCalls !== undefined ? this.beforeCalls : { open: this.open, lastIndex: this.lastIndex }
    let out = ""
    let index = shown.lastIndex + 1
    if (shown.open?.type === "text") {
      out += event("content_block_delta", { index: shown.open.index, delta: { type: "text_delta", text: notice } })
      out += event("content_block_stop", { index: shown.open.index })
    } else {
      // An open thinking or tool block ends here (a cut-off call is never completed); the notice gets a text block of its own.
      if (shown.open !== undefined) out += event("content_block_stop", { index: shown.open.index })
      out += event("content_block_start", { index, content_block: { type: "text", text: "" } })
      out += event("content_block_delta", { index, delta: { type: "text_delta", text: notice } })
      out += event("content_block_stop", { index })
      index += 1
    }
    out += event("message_delta", { delta: { stop_reason: "end_turn", stop_sequence: null }, usage: this.upstreamUsage ?? { output_tokens: estimateTokens(this.reasoning + this.text + notice) } })
    return out + event("message_stop", {})
  }
}

export const messagesProtocol: Protocol = {
  name: "messages",
  conversation,
  mapAssistantText: (body, f) => {
    if (!Array.isArray(body?.messages)) return body
    const messages = body.messages.map((m: any) => {
      if (m?.role !== "assistant") return m
      const blocks = blocksOf(m.content)
      const next = f(textOfContent(blocks))
      if (next === null) return m
      // Thinking of a cut reply goes with it (its signature would no longer match the turn).
      const kept = blocks.filter((b) => b?.type === "tool_use" || b?.type === "server_tool_use")
      return { ...m, content: [{ type: "text", text: next }, ...kept] }
    })
    return { ...body, messages }
  },
  withoutTools: (body) => (offersTools(body) ? { ...body, tool_choice: { type: "none" } } : body),
  insertUserText: (body, before, text) => {
    const messages: Array<any> = Array.isArray(body?.messages) ? [...body.messages] : []
    const at = before === null ? messages.length - 1 : before - 1
    const host = messages[at]
    // Roles must alternate: the reminder joins the user message it follows as one more text block.
    if (host?.role === "user") messages[at] = { ...host, content: [...blocksOf(host.content), { type: "text", text }] }
    else messages.splice(at + 1, 0, { role: "user", content: [{ type: "text", text }] })
    return { ...body, messages }
  },
  watch: (body) => new MessagesWatch(body),
  replyText: (json) => textOfContent(json?.content),
  withReplyText: (json, text) => ({
    ...json,
    content: [...(Array.isArray(json?.content) ? json.content : []).filter((b: any) => b?.type !== "text" && b?.type !== "thinking"), { type: "text", text }],
    stop_reason: "end_turn"
  }),
  // The calls of a whole reply arrive parsed (`input`), so they are never cut off; they are read
  // for the tool caps and the session's record.
  wholeCalls: {
    of: (json) =>
      (Array.isArray(json?.content) ? json.content : [])
        .filter((b: any) => b?.type === "tool_use")
        .map((b: any) => ({ id: String(b.id ?? ""), name: String(b.name ?? ""), args: JSON.stringify(b.input ?? {}) })),
    refused: (json, text) => ({
      ...json,
      content: [...(Array.isArray(json?.content) ? json.content : []).filter((b: any) => b?.type !== "text" && b?.type !== "thinking" && b?.type !== "tool_use"), { type: "text", text }],
      stop_reason: "end_turn"
    })
  },
  answer: (body, text) => {
    const id = `msg_loopguard_${Date.now().toString(36)}`
    const usage = usageOf(body, text)
    const model = String(body?.model ?? "")
    if (body?.stream !== true) {
      const message = { id, type: "message", role: "assistant", model, content: [{ type: "text", text }], stop_reason: "end_turn", stop_sequence: null, usage }
      return { contentType: "application/json", body: JSON.stringify(message) }
    }
    const start = { id, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: usage.input_tokens, output_tokens: 0 } }
    const out =
      event("message_start", { message: start }) +
      event("content_block_start", { index: 0, content_block: { type: "text", text: "" } }) +
      event("content_block_delta", { index: 0, delta: { type: "text_delta", text } }) +
      event("content_block_stop", { index: 0 }) +
      event("message_delta", { delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: usage.output_tokens } }) +
      event("message_stop", {})
    return { contentType: SSE_CONTENT_TYPE, body: out }
  },
  streamError: (message, cause) => event("error", { error: { type: cause?.status === undefined ? "api_error" : messagesType(cause.status), message } }),
  textCalls: {
    streamEnd: (watch, held, calls) => {
      const w = watch as MessagesWatch
      let index = w.nextIndex
      let out = w.openIndex === undefined ? "" : event("content_block_stop", { index: w.openIndex })
      for (const use of toolUses(calls)) {
        out += event("content_block_start", { index, content_block: { ...use, input: {} } })
        out += event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: JSON.stringify(use.input) } })
        out += event("content_block_stop", { index })
        index += 1
      }
      // The upstream's own message_delta keeps its usage; only the stop reason changes.
      const upstream = eventsOf(held).map((e) => parseJson(e.data)).find((e) => e?.type === "message_delta")
      const usage = upstream?.usage ?? { output_tokens: estimateTokens(watch.reasoning + watch.text) }
      out += event("message_delta", { delta: { ...upstream?.delta, stop_reason: "tool_use", stop_sequence: null }, usage })
      return out + event("message_stop", {})
    },
    json: (json, calls, prose) => {
      const content: ReadonlyArray<any> = Array.isArray(json?.content) ? json.content : []
      if (content.some((b) => b?.type === "tool_use" || b?.type === "server_tool_use")) return null
      // Thinking stays first, as the model wrote it; the text without the markup, then the calls.
      const kept = content.filter((b) => b?.type !== "text")
      return { ...json, content: [...kept, ...(prose === "" ? [] : [{ type: "text", text: prose }]), ...toolUses(calls)], stop_reason: "tool_use" }
    }
  }
}

/** Calls the model wrote as text, as tool_use blocks (ids of the proxy's own). */
const toolUses = (calls: ReadonlyArray<TextCall>) => {
  const idOf = textCallIds()
  return calls.map((c, n) => ({ type: "tool_use", id: idOf("toolu_loopguard_text", n), name: c.name, input: c.arguments }))
}
