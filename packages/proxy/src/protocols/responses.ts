/** OpenAI Responses (`POST /v1/responses`), streamed and not: what Codex CLI speaks. */
import { estimateTokens } from "@loopguard/core/context"
import { spliced } from "./chat.js"
import { HistoryBuilder, inputOf, textOfContent } from "../history.js"
import { conversationOf, offersTools, JSON_FORMATS, parseJson, SSE_CONTENT_TYPE, wholeArguments, type ObservedCall, type Protocol, type Seen, type StreamWatch, type TextCall, UNREADABLE } from "../protocol.js"
import { CUT_MARK, isCutReply, STOP_MARK } from "../notices.js"
import { eventsOf, sseText } from "../sse.js"
import { textCallIds } from "../text-calls.js"
import { openAiError } from "../error-kinds.js"
import type { SseEvent } from "../sse.js"

const CALL_TYPES = new Set(["function_call", "custom_tool_call", "local_shell_call"])
const OUTPUT_TYPES = new Set(["function_call_output", "custom_tool_call_output", "local_shell_call_output"])

/**
 * Ids of the items the proxy makes itself. A client that stores its responses (the AI SDK's
 * Responses provider by default) names earlier items by id on its next request (`item_reference`);
 * the upstream never saw these, so such a reference goes up spelled out, and is read as what it said.
 */
const OWN_ITEM = { stop: "msg_loopguard_stop", cut: "msg_loopguard_cut", note: "msg_loopguard_note" } as const

/** What an item of the proxy's said, by its id; null: not one of the proxy's (or one it cannot spell out). */
const ownItemText = (id: string): string | null => {
  if (id === OWN_ITEM.stop) return `${STOP_MARK} (loopguard's own answer, named here by its id).`
  if (id === OWN_ITEM.cut || id.startsWith(`${OWN_ITEM.cut}_`)) return `${CUT_MARK} and was cut here.]`
  if (id.startsWith(`${OWN_ITEM.note}_`)) return "[loopguard: this reply was cut off here.]"
  return null
}

/** The id of a message item the proxy adds to a reply it ends with `notice`. */
const ownId = (notice: string, index: number): string => `${isCutReply(notice) ? OWN_ITEM.cut : OWN_ITEM.note}_${index}`

const ownItemsSpelledOut = (body: any): any | null => {
  if (!Array.isArray(body?.input)) return null
  let named = false
  const input = body.input.map((item: any) => {
    const text = item?.type === "item_reference" && typeof item.id === "string" ? ownItemText(item.id) : null
    if (text === null) return item
    named = true
    return { type: "message", role: "assistant", content: text }
  })
  return named ? { ...body, input } : null
}

const itemsOf = (body: any): ReadonlyArray<any> =>
  typeof body?.input === "string" ? [{ type: "message", role: "user", content: body.input }] : Array.isArray(body?.input) ? body.input : []

const summaryText = (item: any): string =>
  [...(Array.isArray(item?.summary) ? item.summary : []), ...(Array.isArray(item?.content) ? item.content : [])]
    .map((p: any) => (typeof p?.text === "string" ? p.text : ""))
    .join("")

const callOf = (item: any) => ({
  id: String(item.call_id ?? item.id ?? ""),
  name: String(item.name ?? (item.type === "local_shell_call" ? "local_shell" : "")),
  input: item.type === "custom_tool_call" ? { input: item.input } : item.type === "local_shell_call" ? (item.action ?? {}) : inputOf(item.arguments)
})

const outputText = (output: unknown): string => (typeof output === "string" ? output : textOfContent(output) || JSON.stringify(output ?? ""))

const conversation: Protocol["conversation"] = (body) => {
  const history = new HistoryBuilder()
  let system = typeof body?.instructions === "string" ? body.instructions : ""
  let firstUser: string | undefined
  // Reasoning, text and calls of one step arrive as items of their own: one step until a result or a user turn.
  let inStep = false
  itemsOf(body).forEach((item, at) => {
    const type = item?.type ?? (item?.role !== undefined ? "message" : undefined)
    if (type === "message") {
      const role = item.role
      if (role === "system" || role === "developer") system += textOfContent(item.content)
      else if (role === "user") {
        const text = textOfContent(item.content)
        firstUser ??= text
        history.user(at, text)
        inStep = false
      } else if (role === "assistant") {
        history.assistant(at, { text: textOfContent(item.content) }, inStep)
        inStep = true
      }
    } else if (type === "reasoning") {
      history.assistant(at, { reasoning: summaryText(item) }, inStep)
      inStep = true
    } else if (CALL_TYPES.has(type)) {
      history.assistant(at, { calls: [callOf(item)] }, inStep)
      inStep = true
    } else if (OUTPUT_TYPES.has(type)) {
      history.toolResult(String(item.call_id ?? ""), outputText(item.output))
      inStep = false
    }
  })
  return conversationOf(body, {
    system,
    firstUser,
    messages: history.messages,
    wireLength: itemsOf(body).length,
    // Function tools only: a call written as text has JSON arguments, which a custom (free-form) or built-in tool does not take.
    tools: (Array.isArray(body?.tools) ? body.tools : []).filter((t: any) => t?.type === "function").map((t: any) => String(t?.name ?? "")),
    structured: JSON_FORMATS.has(body?.text?.format?.type)
  })
}

const usageOf = (body: any, completion: string) => {
  const input = estimateTokens(JSON.stringify(body?.input ?? "") + String(body?.instructions ?? ""))
  const output = estimateTokens(completion)
  return { input_tokens: input, input_tokens_details: { cached_tokens: 0 }, output_tokens: output, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: input + output }
}

const messageItem = (id: string, text: string, status: string) => ({
  id,
  type: "message",
  status,
  role: "assistant",
  content: [{ type: "output_text", text, annotations: [] }]
})

/** Events that add one finished assistant message at `index` (`seq` numbers them). */
const messageEvents = (id: string, index: number, text: string, seq: () => number): string => {
  const part = { type: "output_text", text: "", annotations: [] }
  return (
    sseText(JSON.stringify({ type: "response.output_item.added", sequence_number: seq(), output_index: index, item: messageItem(id, "", "in_progress") }), "response.output_item.added") +
    sseText(JSON.stringify({ type: "response.content_part.added", sequence_number: seq(), item_id: id, output_index: index, content_index: 0, part }), "response.content_part.added") +
    textClose(id, index, text, text, seq)
  )
}

/** The delta `notice`, then the events that finish the message item `id` whose whole text is `text`. */
const textClose = (id: string, index: number, notice: string, text: string, seq: () => number): string =>
  sseText(JSON.stringify({ type: "response.output_text.delta", sequence_number: seq(), item_id: id, output_index: index, content_index: 0, delta: notice }), "response.output_text.delta") +
  sseText(JSON.stringify({ type: "response.output_text.done", sequence_number: seq(), item_id: id, output_index: index, content_index: 0, text }), "response.output_text.done") +
  sseText(
    JSON.stringify({ type: "response.content_part.done", sequence_number: seq(), item_id: id, output_index: index, content_index: 0, part: { type: "output_text", text, annotations: [] } }),
    "response.content_part.done"
  ) +
  sseText(JSON.stringify({ type: "response.output_item.done", sequence_number: seq(), output_index: index, item: messageItem(id, text, "completed") }), "response.output_item.done")

const completed = (response: object, seq: () => number): string =>
  sseText(JSON.stringify({ type: "response.completed", sequence_number: seq(), response }), "response.completed")

class ResponsesWatch implements StreamWatch {
  text = ""
  reasoning = ""
  finish: string | undefined
  private response: any
  /** The upstream's own usage from its last event, kept when the proxy closes the reply itself. */
  private upstreamUsage: unknown
  private seq = 0
  /** Items by output index: done ones as the upstream finished them, open ones as far as they arrived. */
  private items = new Map<number, { item: any; done: boolean; text: string }>()
  /** Where the client's view stopped when calls are held back: the items and sequence before the first call. */
  private beforeCalls: { readonly seq: number; readonly items: Map<number, { item: any; done: boolean; text: string }> } | undefined

  constructor(private readonly body: any) {}

  get calls(): ReadonlyArray<ObservedCall> {
    return [...this.items.values()]
      .filter((i) => CALL_TYPES.has(i.item?.type))
      .map((i) => {
        const id = String(i.item.call_id ?? i.item.id ?? "")
        const name = String(i.item.name ?? "")
        if (i.item.type !== "custom_tool_call") return { id, name, args: i.done ? String(i.item.arguments ?? "") : i.text }
        return { id, name, args: i.done ? String(i.item.input ?? "") : i.text, freeform: { done: i.done } }
      })
  }

  see(event: SseEvent): Seen {
    const e = parseJson(event.data)
    if (e === undefined) return UNREADABLE
    if (e === null) return {}
    if (e.type === "response.output_item.added" && CALL_TYPES.has(e.item?.type) && this.beforeCalls === undefined)
      this.beforeCalls = { seq: this.seq, items: new Map([...this.items].map(([at, entry]) => [at, { ...entry }])) }
    if (typeof e.sequence_number === "number") this.seq = e.sequence_number + 1
    switch (e.type) {
      case "response.created":
      case "response.in_progress":
        this.response = e.response
        return {}
      case "response.output_item.added":
        this.items.set(Number(e.output_index), { item: e.item, done: false, text: "" })
        return CALL_TYPES.has(e.item?.type) ? { toolCall: true } : {}
      case "response.output_item.done":
        this.items.set(Number(e.output_index), { item: e.item, done: true, text: "" })
        return {}
      case "response.output_text.delta":
        return this.grow(e, "text")
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta":
        return this.grow(e, "reasoning")
      case "response.function_call_arguments.delta":
      case "response.custom_tool_call_input.delta":
        this.grow(e, "args")
        return { toolCall: true }
      case "response.completed":
        this.finish = "completed"
        this.upstreamUsage = e.response?.usage ?? undefined
        return { end: true, finishing: true, last: true }
      case "response.incomplete":
        this.finish = String(e.response?.incomplete_details?.reason ?? "incomplete")
        this.upstreamUsage = e.response?.usage ?? undefined
        return { end: true, last: true }
      case "response.failed":
      case "error":
        return { error: true }
      default:
        return {}
    }
  }

  private grow(e: any, kind: "text" | "reasoning" | "args"): Seen {
    const delta = typeof e.delta === "string" ? e.delta : ""
    const open = this.items.get(Number(e.output_index))
    if (open !== undefined && !open.done) open.text += delta
    if (kind === "text") this.text += delta
    if (kind === "reasoning") this.reasoning += delta
    return kind === "args" ? {} : { [kind]: delta }
  }

  /** The output index the next item takes. */
  get nextOutputIndex(): number {
    return this.items.size === 0 ? 0 : Math.max(...this.items.keys()) + 1
  }

  close(notice: string, callsDropped = false): string {
    if (callsDropped && this.beforeCalls !== undefined) {
      this.seq = this.beforeCalls.seq
      this.items = this.beforeCalls.items
    }
    const seq = () => this.seq++
    let out = ""
    const output: Array<unknown> = []
    let textItem: { index: number; id: string; text: string } | undefined
    for (const [index, entry] of [...this.items].sort((a, b) => a[0] - b[0])) {
      // A call whose arguments were cut off is left out: it must not run.
      if (entry.done) {
        if (!CALL_TYPES.has(entry.item?.type) || wholeArguments(String(entry.item.arguments ?? ""))) output.push(entry.item)
      }
      else if (entry.item?.type === "message") textItem = { index, id: String(entry.item.id ?? ownId(notice, index)), text: entry.text }
      else if (entry.item?.type === "reasoning") {
        const item = { ...entry.item, summary: [{ type: "summary_text", text: entry.text }] }
        out += sseText(JSON.stringify({ type: "response.output_item.done", sequence_number: seq(), output_index: index, item }), "response.output_item.done")
        output.push(item)
      }
      // An unfinished call is dropped: its arguments are cut off and must not run.
    }
    if (textItem !== undefined) {
      out += textClose(textItem.id, textItem.index, notice, textItem.text + notice, seq)
      output.push(messageItem(textItem.id, textItem.text + notice, "completed"))
    } else {
      const index = this.nextOutputIndex
      const id = ownId(notice, index)
      out += messageEvents(id, index, notice, seq)
      output.push(messageItem(id, notice, "completed"))
    }
    const response = { ...(this.response ?? baseResponse(this.body)), status: "completed", output, usage: this.upstreamUsage ?? usageOf(this.body, this.reasoning + this.text + notice) }
    return out + completed(response, seq)
  }

  error(message: string): string {
    return errorEvent(message, this.seq++)
  }
}

/** A failure after the stream began: the error event numbered after the last event seen, as every event of the stream is. */
const errorEvent = (message: string, sequence: number, code = "upstream_error"): string =>
  sseText(JSON.stringify({ type: "error", sequence_number: sequence, code, message, param: null }), "error")

/** The code of an error event for an upstream's HTTP status (OpenAI's code for it, else its type). */
const codeFor = (status: number): string => {
  const kind = openAiError(status)
  return kind.code ?? kind.type
}

const baseResponse = (body: any) => ({
  id: `resp_loopguard_${Date.now().toString(36)}`,
  object: "response",
  created_at: Math.floor(Date.now() / 1000),
  model: String(body?.model ?? ""),
  status: "in_progress",
  output: []
})

export const responsesProtocol: Protocol = {
  name: "responses",
  conversation,
  ownItemsSpelledOut,
  mapAssistantText: (body, f) => {
    if (!Array.isArray(body?.input)) return body
    const changed = new Set<number>()
    const input = body.input.map((item: any, at: number) => {
      if (!(item?.type === "message" || item?.type === undefined) || item?.role !== "assistant") return item
      const next = f(textOfContent(item.content))
      if (next === null) return item
      changed.add(at)
      return { ...item, content: [{ type: "output_text", text: next, annotations: [] }] }
    })
    // The reasoning item just before a cropped reply belonged to the repeating step: left out with it.
    return { ...body, input: input.filter((item: any, at: number) => !(item?.type === "reasoning" && changed.has(at + 1))) }
  },
  withoutTools: (body) => (offersTools(body) ? { ...body, tool_choice: "none" } : body),
  insertUserText: (body, before, text) => ({ ...body, input: spliced(itemsOf(body), before, { type: "message", role: "user", content: [{ type: "input_text", text }] }) }),
  watch: (body) => new ResponsesWatch(body),
  replyText: (json) =>
    (Array.isArray(json?.output) ? json.output : [])
      .filter((i: any) => i?.type === "message")
      .map((i: any) => textOfContent(i.content))
      .join(""),
  withReplyText: (json, text) => {
    const kept = (Array.isArray(json?.output) ? json.output : []).filter((i: any) => i?.type !== "message")
    return { ...json, status: "completed", output: [...kept, messageItem(OWN_ITEM.cut, text, "completed")] }
  },
  wholeCalls: {
    of: (json) => {
      const calls = (Array.isArray(json?.output) ? json.output : []).filter((i: any) => i?.type === "function_call" || i?.type === "custom_tool_call")
      // A response cut at its output limit was cut while writing its last item: that call is whole only when marked completed.
      const cutAtEnd = json?.status === "incomplete"
      return calls.map((i: any, n: number) => {
        const unfinished = i.status === "incomplete" || (cutAtEnd && n === calls.length - 1 && i.status !== "completed")
        const id = String(i.call_id ?? i.id ?? "")
        return i.type === "function_call"
          ? { id, name: String(i.name ?? ""), args: typeof i.arguments === "string" ? i.arguments : "", ...(unfinished ? { incomplete: true } : {}) }
          : { id, name: String(i.name ?? ""), args: String(i.input ?? ""), freeform: { done: !unfinished && (i.status === undefined || i.status === "completed") } }
      })
    },
    refused: (json, text) => {
      const kept = (Array.isArray(json?.output) ? json.output : []).filter((i: any) => !CALL_TYPES.has(i?.type) && i?.type !== "message")
      return { ...json, status: "completed", incomplete_details: null, output: [...kept, messageItem(OWN_ITEM.note + "_0", text, "completed")] }
    }
  },
  answer: (body, text) => {
    const response = { ...baseResponse(body), status: "completed", output: [messageItem(OWN_ITEM.stop, text, "completed")], usage: usageOf(body, text) }
    if (body?.stream !== true) return { contentType: "application/json", body: JSON.stringify(response) }
    let n = 0
    const seq = () => n++
    const start = { ...response, status: "in_progress", output: [], usage: null }
    const out =
      sseText(JSON.stringify({ type: "response.created", sequence_number: seq(), response: start }), "response.created") +
      sseText(JSON.stringify({ type: "response.in_progress", sequence_number: seq(), response: start }), "response.in_progress") +
      messageEvents(OWN_ITEM.stop, 0, text, seq) +
      completed(response, seq)
    return { contentType: SSE_CONTENT_TYPE, body: out }
  },
  streamError: (message, cause) => errorEvent(message, 0, cause?.status === undefined ? undefined : codeFor(cause.status)),
  textCalls: {
    streamEnd: (watch, held, calls) => {
      const done = eventsOf(held).map((e) => parseJson(e.data)).find((e) => e?.type === "response.completed")
      if (done === undefined) return held
      // The calls take the completion's place in the numbering; the completion follows them.
      let n = typeof done.sequence_number === "number" ? done.sequence_number : 0
      const seq = () => n++
      let index = (watch as ResponsesWatch).nextOutputIndex
      let out = ""
      const items = functionCalls(calls)
      for (const item of items) {
        const at = index++
        const about = { item_id: item.id, output_index: at }
        out += sseText(JSON.stringify({ type: "response.output_item.added", sequence_number: seq(), output_index: at, item: { ...item, arguments: "", status: "in_progress" } }), "response.output_item.added")
        out += sseText(JSON.stringify({ type: "response.function_call_arguments.delta", sequence_number: seq(), ...about, delta: item.arguments }), "response.function_call_arguments.delta")
        out += sseText(JSON.stringify({ type: "response.function_call_arguments.done", sequence_number: seq(), ...about, arguments: item.arguments }), "response.function_call_arguments.done")
        out += sseText(JSON.stringify({ type: "response.output_item.done", sequence_number: seq(), output_index: at, item }), "response.output_item.done")
      }
      const output: ReadonlyArray<unknown> = Array.isArray(done.response?.output) ? done.response.output : []
      return out + completed({ ...done.response, output: [...output, ...items] }, seq)
    },
    json: (json, calls, prose) => {
      const output: ReadonlyArray<any> = Array.isArray(json?.output) ? json.output : []
      if (output.some((i) => CALL_TYPES.has(i?.type))) return null
      // Reasoning stays; the message keeps its id with the text without the markup (left out when nothing else was written).
      const message = output.find((i) => i?.type === "message")
      const text = prose === "" ? [] : [messageItem(String(message?.id ?? "msg_loopguard_text"), prose, "completed")]
      return { ...json, output: [...output.filter((i) => i?.type !== "message"), ...text, ...functionCalls(calls)] }
    }
  }
}

/** Calls the model wrote as text, as function_call items (ids of the proxy's own). */
const functionCalls = (calls: ReadonlyArray<TextCall>) => {
  const idOf = textCallIds()
  return calls.map((c, n) => ({ type: "function_call", id: idOf("fc_loopguard_text", n), call_id: idOf("call_loopguard_text", n), name: c.name, arguments: JSON.stringify(c.arguments), status: "completed" }))
}
