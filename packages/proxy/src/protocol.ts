/**
 * What the proxy needs of each wire protocol (OpenAI Chat Completions, OpenAI Responses,
 * Anthropic Messages, the Gemini API): the conversation as loopguard messages, two rewrites of a request (a cut
 * reply cropped to its notice, a reminder added at the end), a watcher of the streamed reply, the
 * events that end a cut stream well-formed, the proxy's own answer and its protocol's error.
 */
import type { Message } from "@loopguard/core/model"
import { duplicateKeyOf } from "@loopguard/core/toolcall"
import type { SseEvent } from "./sse.js"

export type ProtocolName = "chat" | "responses" | "messages" | "gemini"

export interface Conversation {
  /** The system prompt (instructions), for the session id. */
  readonly system: string
  /** The first user turn's text, for the session id. */
  readonly firstUser: string
  readonly messages: ReadonlyArray<Message>
  /** Wire messages (items) in the request: the reply will sit at this position in the next one. */
  readonly wireLength: number
  readonly model: string | undefined
  readonly stream: boolean
  /** Names of the tools the request offers that a call written as text may name: those the client runs with JSON arguments. */
  readonly tools: ReadonlyArray<string>
  /**
   * The request asks for JSON (a response format or a schema): whatever the reply repeats (a list of
   * like items, a matrix of zeros) was asked for, so the repetition guard does not read it, and a cut
   * would leave the client JSON it cannot parse.
   */
  readonly structured: boolean
  /** A request for JSON that offers no tool (a title, a routing or a next-speaker check): not an agent step, passed on unjudged. */
  readonly utility: boolean
  /**
   * The id the agent gives its conversation in the body, when it gives one: Codex's
   * `prompt_cache_key`, the `session_id` in Claude Code's `metadata.user_id`. Two conversations
   * with one system prompt and one first message (Codex's opens with its folder and date) are
   * told apart by it.
   */
  readonly agentKey?: string
  /**
   * A side request of a conversation that works with tools (a summary for compaction, a recap): it
   * ends with a user turn and offers no tool while its history made tool calls. Its messages are not
   * the conversation's next step, so it is kept apart (see `sessionIdOf`).
   */
  readonly side?: boolean
}

/** Whether the request offers any tool (a server tool too). */
export const offersTools = (body: any): boolean => Array.isArray(body?.tools) && body.tools.length > 0

/** The response formats that ask for JSON, by the names the OpenAI and Anthropic APIs give them. */
export const JSON_FORMATS: ReadonlySet<unknown> = new Set(["json_object", "json_schema"])

/** A conversation from what every protocol has: the system prompt, the first user turn, the built history, the wire length, the offered tools' names. */
export const conversationOf = (
  body: any,
  parts: {
    readonly system: string
    readonly firstUser: string | undefined
    readonly messages: ReadonlyArray<Message>
    readonly wireLength: number
    readonly tools: ReadonlyArray<string>
    readonly structured: boolean
  }
): Conversation => ({
  system: parts.system,
  firstUser: parts.firstUser ?? "",
  messages: parts.messages,
  wireLength: parts.wireLength,
  model: typeof body?.model === "string" ? body.model : undefined,
  stream: body?.stream === true,
  tools: parts.tools,
  structured: parts.structured,
  // Any tool at all (a server tool too) makes it an agent step, however its answer is shaped.
  utility: parts.structured && !offersTools(body),
  ...withAgentKey(agentKeyOf(body)),
  ...(isSideRequest(body, parts.messages) ? { side: true } : {})
})

/**
 * A question of the client's own put after a conversation that works with tools, offering none: its
 * last message is a user turn (an agent's step ends with its tools' results), no tool is offered, and
 * the history made tool calls.
 */
const isSideRequest = (body: any, messages: ReadonlyArray<Message>): boolean =>
  messages.at(-1)?.role === "user" && !offersTools(body) && messages.some(madeToolCalls)

const withAgentKey = (key: string | undefined): { agentKey?: string } => (key === undefined ? {} : { agentKey: key })

const madeToolCalls = (m: Message): boolean => m.role === "assistant" && m.parts.some((p) => p.type === "tool")

/** Claude Code's session id inside its `metadata.user_id` (JSON, or the older `…_session_<uuid>` string). */
const CLAUDE_SESSION = /(?:"session_id"\s*:\s*"|_session_)([0-9A-Za-z-]{8,64})/

/** The conversation id the agent sends in the body (see `Conversation.agentKey`), or undefined. */
export const agentKeyOf = (body: any): string | undefined => {
  const cacheKey = body?.prompt_cache_key
  if (typeof cacheKey === "string" && cacheKey !== "") return cacheKey.slice(0, 256)
  const user = body?.metadata?.user_id
  return typeof user === "string" ? CLAUDE_SESSION.exec(user)?.[1] : undefined
}

/** What one upstream event carried. */
export interface Seen {
  readonly text?: string
  readonly reasoning?: string
  /** A tool call began (its name) or its arguments grew. */
  readonly toolCall?: boolean
  /** The upstream said the reply is complete. */
  readonly end?: boolean
  /**
   * The protocol's terminator (`[DONE]`, `response.completed`, `message_stop`): nothing follows it,
   * so the client's reply ends here even when the upstream's connection does not.
   */
  readonly last?: boolean
  /** The event that names the reply's finish (the events from here on end the reply). */
  readonly finishing?: boolean
  /** The upstream sent an error event. */
  readonly error?: boolean
  /** The event's data could not be read (no JSON): what it carried (a part of a call's arguments) is lost. */
  readonly unreadable?: boolean
}

/** What a watch says of an event it could not read. */
export const UNREADABLE: Seen = { unreadable: true }

/** A streamed tool call as far as it arrived. */
export interface ObservedCall {
  readonly id: string
  readonly name: string
  readonly args: string
  /**
   * A freeform call (Responses `custom_tool_call`, Codex's `apply_patch`): its input is text, not
   * JSON, so it is whole only once the upstream said its item is done.
   */
  readonly freeform?: { readonly done: boolean }
  /** The upstream said this call is not finished (a Responses item marked `incomplete`): not whole, whatever its arguments parse to. */
  readonly incomplete?: boolean
}

/** What made a stream fail after it began: the upstream's HTTP status, or its connection's error code. */
export interface StreamFailure {
  readonly status?: number | undefined
  readonly code?: string | undefined
}

export interface StreamWatch {
  see(event: SseEvent): Seen
  /**
   * Events that end the client's stream well-formed after a cut, `notice` shown as text.
   * `callsDropped`: the events from the first call on never reached the client (held back, then
   * dropped), so the end continues from what the client saw before them (its block and item
   * indexes, its sequence numbers).
   */
  close(notice: string, callsDropped?: boolean): string
  /** A failure after the stream began, as this protocol's error event where it must fit the stream (a sequence number); else the protocol's own `streamError`. */
  error?(message: string): string
  /** What arrived so far (for the record and the checks at the end). */
  readonly text: string
  readonly reasoning: string
  readonly calls: ReadonlyArray<ObservedCall>
  /** The upstream's own finish reason, as it named it. */
  readonly finish: string | undefined
  /**
   * The protocol's last event (Chat `[DONE]`, Messages `message_stop`): a reply that named its finish
   * and then lost its terminator (the connection closed, reset or went silent) is ended with it, as
   * the upstream would have. Absent where the event that names the finish is the end (Responses, Gemini).
   */
  readonly terminator?: string
}

export interface ProxyAnswer {
  readonly contentType: string
  readonly body: string
}

export interface Protocol {
  readonly name: ProtocolName
  conversation(body: any): Conversation
  /** The body with every assistant text passed through `f` (`null`: unchanged); reasoning of a changed reply is dropped. */
  mapAssistantText(body: any, f: (text: string) => string | null): any
  /** The body with one more user text before wire message `before` (null: at the end): a reminder for the upstream only. */
  insertUserText(body: any, before: number | null, text: string): any
  /**
   * The body asking for a reply without tool calls (a turn's last allowed step): its tools stay
   * declared (the history names them), the tool choice says none. Unchanged when it offers no tool.
   */
  withoutTools(body: any): any
  watch(body: any): StreamWatch
  /** A whole non-streamed reply: its text, and the body with the text replaced (a cut). */
  replyText(json: any): string
  withReplyText(json: any, text: string): any
  /**
   * A whole reply's calls, their arguments as JSON text (which a reply cut at its length limit
   * leaves unfinished where the protocol sends them as text: Chat Completions, Responses), and the
   * reply with its calls taken out and `text` as its answer.
   */
  readonly wholeCalls?: {
    readonly of: (json: any) => ReadonlyArray<ObservedCall>
    readonly refused: (json: any, text: string) => any
  }
  /** The proxy's own assistant turn, streamed or not, in this protocol. */
  answer(body: any, text: string): ProxyAnswer
  /**
   * The body with its references to items only the proxy made (its stop answers, its cut notices),
   * which the upstream never saw, replaced by what those items said; null when it names none. Only
   * the protocols whose clients refer to earlier items by id (Responses, with `store`).
   */
  readonly ownItemsSpelledOut?: (body: any) => any | null
  /**
   * A failure after the stream began, as this protocol's error event; `cause`: the upstream's HTTP
   * status, named as the protocol names its kind (a refused key is no server error to retry), or the
   * connection's failure (`ECONNRESET`: a transport error, which clients retry as they would the
   * broken connection itself).
   */
  streamError(message: string, cause?: StreamFailure): string
  /**
   * Tool calls the model wrote as text, made structured: the events that end the streamed reply
   * with them (in place of the upstream's finish), and the same for a whole JSON reply. Only the
   * protocols that have it (`proxy.textToolCalls`).
   */
  readonly textCalls?: {
    readonly streamEnd: (watch: StreamWatch, held: string, calls: ReadonlyArray<TextCall>) => string
    /** The whole reply with the calls made structured; null when it already has structured calls. */
    readonly json: (json: any, calls: ReadonlyArray<TextCall>, prose: string) => any
  }
}

/** A tool call found in reply text, with whole arguments. */
export interface TextCall {
  readonly name: string
  readonly arguments: Readonly<Record<string, unknown>>
}

/** The streaming-response content type. */
export const SSE_CONTENT_TYPE = "text/event-stream; charset=utf-8"

/**
 * Whether a streamed chunk is an error: its `error` set to something, as the OpenAI SDK reads it
 * (Foundry Local sends `"error": null` in every healthy chunk).
 */
export const carriesError = (chunk: any): boolean => Boolean(chunk?.error)

/** Parsed JSON, or undefined (a bad event is passed on, never thrown on). */
export const parseJson = (text: string): any => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** The finishes that say the reply was cut at its length limit (Chat, Messages, Gemini, Responses' incomplete reason). */
const LENGTH_FINISHES: ReadonlySet<string> = new Set(["length", "max_tokens", "MAX_TOKENS", "max_output_tokens"])

/** Whether a reply's finish says it was cut at its length limit. */
export const cutAtLength = (finish: string | undefined): boolean => finish !== undefined && LENGTH_FINISHES.has(finish)

/**
 * The name of the first call whose arguments are not whole (neither empty nor a JSON object; a
 * freeform call: its item not done), or null when every one is. In a reply cut at its length limit
 * (`atLength`) the last call's empty arguments are not "none" but none yet: it is cut off too.
 */
export const cutOffCall = (calls: ReadonlyArray<ObservedCall>, atLength = false): string | null => {
  const last = calls.at(-1)
  if (atLength && last !== undefined && last.freeform === undefined && last.args.trim() === "") return last.name
  return calls.find((c) => c.incomplete === true || (c.freeform !== undefined ? !c.freeform.done : !wholeArguments(c.args)))?.name ?? null
}

/**
 * Why the call named `name` among `calls` was refused: `not-an-object` for arguments that are whole
 * JSON but no object (`[1,2]`, `null`, `"x"`), `key-twice` for an object that names one key twice
 * (the model's own mistakes, not a reply cut short, and said so), else `cut-off`.
 */
export const callFault = (calls: ReadonlyArray<ObservedCall>, name: string): CallFault => {
  const call = calls.find((c) => c.name === name && c.freeform === undefined && c.args.trim() !== "" && !wholeArguments(c.args) && parseJson(c.args) !== undefined)
  if (call === undefined) return "cut-off"
  const parsed: unknown = parseJson(call.args)
  return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? "key-twice" : "not-an-object"
}

/** Why a call was not passed on (`callFault`). */
export type CallFault = "cut-off" | "not-an-object" | "key-twice"

/**
 * Whether a call's argument text is whole: empty (no arguments) or a JSON object naming no key twice
 * (which of two values the tool would get is a guess). Cut-off arguments are neither.
 */
export const wholeArguments = (args: string): boolean => {
  if (args.trim() === "") return true
  const parsed: unknown = parseJson(args)
  return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) && duplicateKeyOf(args) === null
}
