/**
 * One guarded request (`POST …/chat/completions`, `…/responses`, `…/messages`): the verdict from
 * the history, then either the proxy's own answer (a stop) or the upstream call with the request
 * rewritten for the upstream only, its retries, and the reply relayed through the guard.
 */
import { describeGuardTrip } from "@loopguard/core/repeat"
import { makeRedactor, redactDeep } from "@loopguard/core/try-best"
import type { Incident } from "@loopguard/core/report"
import type { IncomingHttpHeaders } from "node:http"
import { BodyTimedOut, BodyTooLarge, type ClientReply, type ClientRequest } from "./client-reply.js"
import { backoffKeyFor, type BackoffBoard } from "./backoff.js"
import { authorized, clientHeaders, credentialsOf, heldKeyFor, holdsKeys, secretsOf, sendError, upstreamHeaders, upstreamUrlOf, type AuthPolicy } from "./http-util.js"
import { redactBytes } from "./body-bytes.js"
import { cutCallDetail, cutCallNotice, refusalNotice, stopAnswer } from "./notices.js"
import { admitToolCall, type ToolCallCaps, type ToolCallCounts } from "@loopguard/core/caps"
import { toolPartsOf, type Message, type NormalizedError } from "@loopguard/core/model"
import { callFault, offersTools, parseJson, SSE_CONTENT_TYPE, type Conversation, type ObservedCall, type Protocol, type StreamFailure, type StreamWatch } from "./protocol.js"
import { reminderMessages, replyMessage, wholeReplySeen } from "./reply-record.js"
import { HELD_KEEP_ALIVE_MS, relayStream, STILL_COMING, type RelayEnd } from "./relay.js"
import { upstreamBody } from "./rewrite.js"
import { routeFor, type ResolvedRoute } from "./routes.js"
import { sessionHeaderRefusal, sessionIdOf } from "./session-id.js"
import { ENDED_BEFORE_CONTENT, untilContent } from "./early-error.js"
import { textCallsIn } from "./text-calls.js"
import { withTextActions } from "./text-actions.js"
import { relayWhole } from "./whole-reply.js"
import { decodedAttempt } from "./decoded-reply.js"
import { attempt, callWithRetries, type Attempt, type OpenAttempt, type RetryEvent, type UpstreamClient, type UpstreamRoute } from "./upstream.js"
import type { TurnMemo } from "./turn-judge.js"
import type { OutageMemo } from "./outage.js"
import { judgeRequestSliced, type ProxyAction, type StopVerdict, type Verdict } from "./verdict.js"
import type { DetectorSettings, ProxySettings } from "./proxy-settings.js"


/** What the proxy did with one request: a log line, a JSON line, a store record. */
export interface RequestRecord {
  readonly session: string
  readonly protocol: Protocol["name"]
  readonly model: string | undefined
  readonly action: ProxyAction
  readonly incidents: ReadonlyArray<Incident>
  /** How the reply ended: passed whole, cut by the guard (with why), answered by the proxy, failed. */
  readonly outcome: "completed" | "cut" | "answered" | "failed" | "client-gone" | "upstream-error"
  readonly detail?: string
  readonly status: number
  readonly retries: number
  readonly ms: number
}

export interface HandlerDeps {
  readonly settings: ProxySettings
  /** This process's judged turns, taken up by the next request of each conversation. */
  readonly memo: TurnMemo
  readonly board: BackoffBoard
  /** Upstreams that wore out a request's retries lately: one attempt a request until one is answered (outage.ts). */
  readonly outage: OutageMemo
  readonly auth: AuthPolicy
  /** The HTTP client guarded requests go upstream with (fetch on Bun's stack, node:http on Node's). */
  readonly upstreamClient: UpstreamClient
  readonly onRetry: (session: string, e: RetryEvent) => void
  /**
   * Called once per request, after the reply ended, with what the session store keeps of it and the
   * request's own credentials (credentialsOf), which it must never keep.
   */
  readonly onRecord: (record: RequestRecord, messages: ReadonlyArray<Message>, credentials: ReadonlyArray<string>) => void
}

const headersOf = (session: string, action: ProxyAction): Record<string, string> => ({ "x-loopguard-session": session, "x-loopguard-action": action })

/** A request read, routed and judged: everything the answer needs. */
interface Judged {
  readonly req: ClientRequest
  readonly res: ClientReply
  readonly protocol: Protocol
  readonly deps: HandlerDeps
  readonly started: number
  /** The body as the client sent it (what goes upstream when nothing acts). */
  readonly raw: Buffer
  readonly body: any
  readonly conversation: Conversation
  readonly session: string
  readonly route: ResolvedRoute
  readonly detectors: DetectorSettings
  readonly verdict: Verdict
}

const PASS: Verdict = { action: "pass", inserts: [], cropCuts: false, toolsOff: false, stop: null, incidents: [] }

/** What the judge reads: with `proxy.textActions`, in a request that offers no tools, actions written in replies folded into calls and results. */
const judgedMessages = (conversation: Conversation, body: unknown, settings: ProxySettings): ReadonlyArray<Message> =>
  settings.textActions && !offersTools(body) ? withTextActions(conversation.messages) : conversation.messages

/** A body not read (too large, stalled, broken) is answered in the client's protocol; a stalled one's connection closes after it. */
const bodyRefused = (res: ClientReply, protocol: Protocol, e: unknown): void => {
  if (e instanceof BodyTimedOut) return sendError(res, protocol.name, 408, e.message, { connection: "close" })
  sendError(res, protocol.name, e instanceof BodyTooLarge ? 413 : 400, e instanceof Error ? e.message : "unreadable request body")
}

/**
 * The longest the verdict holds the event loop at a time: a long turn judged afresh (seconds for tens
 * of thousands of steps) is judged in slices, and the other streams are served between them.
 */
const JUDGE_SLICE_MS = 4

/** Auth, the bounded body, the route and the verdict; null when the request was already answered (refused). */
const judge = async (req: ClientRequest, res: ClientReply, protocol: Protocol, deps: HandlerDeps): Promise<Judged | null> => {
  const started = Date.now()
  const { settings } = deps
  if (!authorized(req.headers, deps.auth, req.url ?? "")) return (sendError(res, protocol.name, 401, "loopguard proxy: present the proxy token as your API key"), null)
  const badSession = sessionHeaderRefusal(req.headers, settings.sessionHeader)
  if (badSession !== null) return (sendError(res, protocol.name, 400, badSession), null)
  let raw: Buffer
  try {
    raw = await req.body(settings.maxRequestBytes, settings.requestBodyTimeoutMs)
  } catch (e) {
    return (bodyRefused(res, protocol, e), null)
  }
  const parsed = parseJson(raw.toString("utf8"))
  // Items only the proxy made are unknown upstream: a body that names them goes up with them spelled out.
  const spelledOut = parsed === undefined ? null : (protocol.ownItemsSpelledOut?.(parsed) ?? null)
  if (spelledOut !== null) raw = Buffer.from(JSON.stringify(spelledOut))
  const body = spelledOut ?? parsed
  const conversation = protocol.conversation(body)
  const route = routeFor(settings.routing, conversation.model, req.url ?? "/")
  if (route === null) return (sendError(res, protocol.name, 502, `loopguard proxy: no upstream for model ${conversation.model ?? "(none)"}`), null)
  const detectors = (route.prefix !== null ? settings.routeDetectors.get(route.prefix) : undefined) ?? settings
  const session = sessionIdOf(req.headers, settings.sessionHeader, conversation)
  // A body that is not JSON, or a request for JSON that offers no tool, is not ours to judge: the upstream answers it.
  const verdict = body === undefined || conversation.utility ? PASS : await judgeRequestSliced(judgedMessages(conversation, body, settings), detectors.verdict, { memo: deps.memo, session }, JUDGE_SLICE_MS)
  return { req, res, protocol, deps, started, raw, body, conversation, session, route, detectors, verdict }
}

/**
 * The record of a request, and what the session store keeps of it. The record goes to the log
 * lines and the request log: an upstream's error words or an incident's evidence that quote a key
 * (the request's, the upstream key, the proxy token) or a Bearer token are redacted there too.
 */
const recordOf = (j: Judged, retries: () => number) => (outcome: RequestRecord["outcome"], status: number, reply: Message | null, detail?: string) => {
  const { session, protocol, conversation, verdict } = j
  const credentials = credentialsOf(j.req.headers, j.req.url ?? "")
  const redact = makeRedactor([...credentials, ...secretsOf(j.deps.auth)])
  const record: RequestRecord = redactDeep({
    session,
    protocol: protocol.name,
    model: conversation.model,
    action: verdict.action,
    incidents: verdict.incidents,
    outcome,
    status,
    retries: retries(),
    ms: Date.now() - j.started,
    ...(detail !== undefined ? { detail } : {})
  }, redact)
  j.deps.onRecord(record, [...conversation.messages, ...reminderMessages(conversation, verdict.inserts), ...(reply === null ? [] : [reply])], credentials)
}

/** A stop: the proxy answers itself, a well-formed assistant turn without tool calls. */
const answerStop = (j: Judged, stop: StopVerdict): void => {
  const text = stopAnswer(stop.loop, stop.evidence, stop.next)
  const answer = j.protocol.answer(j.body, text)
  j.res.writeHead(200, { "content-type": answer.contentType, ...headersOf(j.session, "stop") })
  j.res.end(answer.body)
  recordOf(j, () => 0)("answered", 200, replyMessage(j.conversation, null, text, false), stop.detector)
}

/**
 * One attempt at the upstream with the rewritten request. A stream counts as answered at its first
 * content: an error event or a stall before it is a failed attempt (early-error.ts).
 */
const upstreamAttempt = (j: Judged, signal: AbortSignal): { readonly target: UpstreamRoute; readonly send: () => Promise<Attempt> } => {
  const { protocol, verdict, route, deps, body } = j
  const rewritten = verdict.inserts.length === 0 && !verdict.cropCuts && !verdict.toolsOff ? j.raw : Buffer.from(JSON.stringify(upstreamBody(protocol, body, verdict)))
  const target = { url: upstreamUrlOf(route.base, j.req.url ?? "/", deps.auth), key: backoffKeyFor(route.base, j.req.headers, holdsKeys(deps.auth)), budgets: route.budgets, retryableStatuses: route.retryableStatuses, chunkTimeoutMs: route.chunkTimeoutMs, client: deps.upstreamClient }
  const headers = { ...upstreamHeaders(j.req.headers, [deps.settings.sessionHeader], deps.auth, protocol.name, true, heldKeyFor(deps.auth, route)), "content-length": String(rewritten.length) }
  const waiting = { everyMs: HELD_KEEP_ALIVE_MS, tell: () => tellStillComing(j) }
  const send = () =>
    attempt(target, "POST", headers, rewritten, signal, waiting).then(async (sent): Promise<Attempt> => {
      const a = sent.ok ? await decodedAttempt(sent, target.chunkTimeoutMs) : sent
      if (!a.ok || !isEventStream(a.res.headers)) return a
      const read = a.first === null ? ({ ok: false, error: ENDED_BEFORE_CONTENT } as const) : await untilContent(protocol, body, a.res, a.first, a.ended, { timeoutMs: target.chunkTimeoutMs, maxEventBytes: deps.settings.maxEventBytes }, waiting)
      if (read.ok) return read.first === a.first ? a : { ...a, first: read.first }
      a.abort()
      // The upstream's own error event, kept to go to the client as it came when no retry follows.
      return { ok: false, error: read.error, body: read.read ?? null, res: read.read === undefined ? null : a.res, ...(read.read === undefined ? { streamOpened: true } : {}) }
    })
  return { target, send }
}

/**
 * The upstream keeps a streamed reply open without content (pings while a model queues or thinks):
 * the client gets its response headers (200, an event stream) and a comment now, not all at once
 * with the first content, so its HTTP client's header timeout does not end a reply that is coming.
 * From here on a failure reaches it as the protocol's error event, not an HTTP status.
 */
const tellStillComing = (j: Judged): void => {
  const { res } = j
  if (res.destroyed) return
  openEventStream(res, headersOf(j.session, j.verdict.action))
  res.write(STILL_COMING)
}

/** The client's response headers as the proxy's own 200 event stream, unless they went out already. */
const openEventStream = (res: ClientReply, extra: Record<string, string>): void => {
  if (!res.headersSent) res.writeHead(200, { "content-type": SSE_CONTENT_TYPE, "cache-control": "no-cache", ...extra })
}

/**
 * The repetition guard's settings for the reply, or null: what a reply asked to be JSON repeats was
 * asked for (Gemini CLI's routing and next-speaker checks, a schema's list of like items).
 */
const replyGuards = (j: Judged) => (j.conversation.structured ? null : j.detectors.guards)

const isEventStream = (headers: IncomingHttpHeaders): boolean => String(headers["content-type"] ?? "").includes("text/event-stream")

/** Why a request's work stops when its connection closes (one made once: it carries no stack worth keeping). */
const CONNECTION_CLOSED = new Error("the client's connection closed")

export const handleGuarded = async (req: ClientRequest, res: ClientReply, protocol: Protocol, deps: HandlerDeps): Promise<void> => {
  const j = await judge(req, res, protocol, deps)
  if (j === null) return
  if (j.verdict.stop !== null) return answerStop(j, j.verdict.stop)
  const call = await callUpstream(j)
  const { opened, record } = call
  const extra = headersOf(j.session, j.verdict.action)
  if (!opened.ok) return answerFailure(j, opened, extra, call)
  if (!isEventStream(opened.res.headers)) {
    // Told it was coming as a stream, the client cannot take a whole body now.
    if (res.headersSent) {
      opened.abort()
      return answerFailure(j, { ok: false, error: { message: "the upstream answered the step asked for again with a whole body, not a stream", code: "upstream_error", phase: "request" }, body: null, res: null }, extra, call)
    }
    return answerWhole(j, opened, extra, call)
  }
  if (!res.headersSent) res.writeHead(opened.res.statusCode ?? 200, clientHeaders(opened.res.headers, extra, false, secretsOf(deps.auth)))
  const { end, watch } = await serveStream(j, opened, call.onceMore)
  const reply = (notice: string | null) => replyMessage(j.conversation, watch, notice, end.type === "cut" || end.type === "cut-call")
  if (end.type === "cut-call") {
    const fault = callFault(watch.calls, end.name)
    const notice = end.refusal !== undefined ? refusalNotice(end.refusal) : cutCallNotice(end.name, fault)
    if (!res.destroyed) res.end(end.opening + watch.close(notice, true))
    return record("cut", 200, reply(notice), end.refusal ?? cutCallDetail(end.name, fault))
  }
  if (end.type === "cut") return record("cut", 200, reply(end.notice), describeGuardTrip(end.trip))
  record(end.type, 200, reply(null), end.type === "failed" ? end.reason : undefined)
}

/** The upstream call after its retries, how to ask for the step once more, and the request's record. */
interface UpstreamCall {
  readonly opened: Attempt
  readonly onceMore: () => Promise<Attempt>
  readonly record: ReturnType<typeof recordOf>
  /** Aborted when the client left before its reply ended. */
  readonly gone: AbortSignal
}

const callUpstream = async (j: Judged): Promise<UpstreamCall> => {
  const { deps, res } = j
  const gone = new AbortController()
  // Only a client that left before its reply ended stops the work (an abort costs its listeners'
  // run on every request otherwise). A reason of our own: without one, Node makes a DOMException.
  res.on("close", () => {
    if (!res.writableFinished) gone.abort(CONNECTION_CLOSED)
  })
  const { target, send } = upstreamAttempt(j, gone.signal)
  let retries = 0
  const record = recordOf(j, () => retries)
  const opened = await callWithRetries(
    target,
    deps.board,
    send,
    gone.signal,
    (e) => {
      retries = e.attempt
      deps.onRetry(j.session, e)
    },
    deps.outage
  )
  // The step asked for once more (a reply that broke off, or whose call was cut off, before any of
  // it reached the client): told and counted as a retry, as the policy's own are.
  const onceMore = (): Promise<Attempt> => {
    retries += 1
    const before = retries
    deps.onRetry(j.session, { attempt: before, delayMs: 0, reason: "the reply broke off or its call was cut off before the client got any of it; asked for once more" })
    return callWithRetries(
      target,
      deps.board,
      send,
      gone.signal,
      (e) => {
        retries = before + e.attempt
        deps.onRetry(j.session, { ...e, attempt: retries })
      },
      deps.outage
    )
  }
  return { opened, onceMore, record, gone: gone.signal }
}

/**
 * The retries are spent: the upstream's own answer as it gave it (an HTTP error, or a stream whose
 * error event came before any content), else the protocol's error naming the failure.
 */
const answerFailure = (j: Judged, failed: Extract<Attempt, { ok: false }>, extra: Record<string, string>, call: UpstreamCall): void => {
  const { res, protocol, deps } = j
  // The client already has its headers (the upstream kept the reply open a while), or the upstream's
  // stream broke before content: the protocol's error event, in a 200 stream as the upstream's was.
  if (res.headersSent || failed.streamOpened === true) {
    openEventStream(res, extra)
    if (!res.destroyed) res.end(protocol.streamError(`loopguard proxy: the upstream failed: ${failureText(failed, secretsOf(deps.auth))}`, streamFailureOf(failed.error)))
  } else if (failed.res !== null && failed.body !== null) {
    const secrets = secretsOf(deps.auth)
    const encoding = failed.bodyEncoding === undefined ? {} : { "content-encoding": failed.bodyEncoding }
    res.writeHead(failed.res.statusCode ?? failed.error.status ?? 502, { ...clientHeaders(failed.res.headers, extra, false, secrets), ...encoding })
    res.end(redactBytes(failed.body, secrets))
  } else if (failed.bodyTooLarge !== undefined) sendError(res, protocol.name, failed.bodyTooLarge, `loopguard proxy: the upstream failed: ${failed.error.message}`, extra)
  else if (failed.error.status === 429) sendError(res, protocol.name, 429, `loopguard proxy: ${failed.error.message}`, { ...extra, ...failed.error.headers })
  else sendError(res, protocol.name, 502, `loopguard proxy: the upstream failed: ${failed.error.message}`, extra)
  call.record(call.gone.aborted ? "client-gone" : "upstream-error", failed.streamOpened === true ? 200 : (failed.error.status ?? 502), null, failed.error.message)
}

/** How a stream failed, as the protocol's error event names it: a stall is the transport's timeout, which clients retry as such. */
const streamFailureOf = (error: NormalizedError): StreamFailure => ({
  ...(error.status !== undefined ? { status: error.status } : {}),
  ...(error.code !== undefined ? { code: error.code === "chunk_timeout" ? "ETIMEDOUT" : error.code } : {})
})

/** The failure in words, with the upstream's own message when its body held one (`{"error": {"message": …}}`), redacted. */
const failureText = (failed: Extract<Attempt, { ok: false }>, secrets: ReadonlyArray<string>): string => {
  const json = failed.body === null ? undefined : parseJson(Buffer.from(failed.body).toString("utf8"))
  const own = json?.error?.message ?? json?.message
  const text = typeof own === "string" && own !== "" && !failed.error.message.includes(own) ? `${failed.error.message}: ${own.slice(0, 500)}` : failed.error.message
  return redactBytes(Buffer.from(text), secrets).toString("utf8")
}

/** A whole (not streamed) reply, judged before any of it goes out; kept as a streamed one is (a cut one with the notice in its text). */
const answerWhole = async (j: Judged, opened: OpenAttempt, extra: Record<string, string>, call: UpstreamCall): Promise<void> => {
  const { deps, protocol } = j
  const whole = await relayWhole(j.res, protocol, opened, {
    settings: { ...deps.settings, guards: replyGuards(j) },
    offered: j.conversation.tools,
    extra,
    again: call.onceMore,
    secrets: secretsOf(deps.auth),
    chunkTimeoutMs: j.route.chunkTimeoutMs,
    refuseCalls: capsFor(j.conversation, deps.settings.toolCaps)
  })
  const reply = whole.sent === undefined ? null : replyMessage(j.conversation, wholeReplySeen(protocol, whole.sent), null, false)
  if (whole.failed !== undefined) return call.record("failed", whole.code, null, whole.failed)
  call.record(whole.cut !== undefined ? "cut" : "completed", whole.code, reply, whole.cut)
}

/**
 * The streamed reply through the relay. A step whose call was cut off before anything reached the
 * client is asked for once more (`again`); the watch returned is the one of the reply shown.
 */
const serveStream = async (j: Judged, opened: OpenAttempt, again: () => Promise<Attempt>): Promise<{ readonly end: RelayEnd; readonly watch: StreamWatch }> => {
  const { protocol, deps, route } = j
  const textCalls = textCallsFor(protocol, deps.settings, j.conversation.tools)
  const relay = (o: OpenAttempt, watch: StreamWatch, lastAttempt: boolean) =>
    relayStream({
      protocol,
      watch,
      upstream: o.res,
      first: o.first,
      ended: o.ended,
      abortUpstream: o.abort,
      client: j.res,
      guards: replyGuards(j),
      textCalls,
      refuseCalls: capsFor(j.conversation, deps.settings.toolCaps),
      limits: { maxResponseBytes: deps.settings.maxResponseBytes, maxEventBytes: deps.settings.maxEventBytes, chunkTimeoutMs: route.chunkTimeoutMs, keepAliveMs: HELD_KEEP_ALIVE_MS },
      lastAttempt
    })
  const watch = protocol.watch(j.body)
  const end = await relay(opened, watch, false)
  if (end.type !== "cut-call" || end.wrote) return { end, watch }
  const second = await again()
  if (!second.ok) {
    // Asked for again and failed: the client (its response open, nothing of the reply in it) gets the failure as the protocol's error event.
    if (!j.res.destroyed) j.res.end(end.opening + protocol.streamError(`loopguard proxy: the upstream failed: ${failureText(second, secretsOf(deps.auth))}`, second.error))
    return { end: { type: "failed", reason: second.error.message }, watch }
  }
  const secondWatch = protocol.watch(j.body)
  return { end: await relay(second, secondWatch, true), watch: secondWatch }
}

/**
 * The reply's cap check (`toolCaps`, streamed or whole): the turn's calls so far, then the reply's; the first one past
 * its tool's cap is refused (the agent gets the refusal, never the call).
 */
const capsFor = (conversation: Conversation, caps: ToolCallCaps) => {
  const counts: Record<string, number> = {}
  // The turn's calls so far: from the newest user message on, as the run loop counts them per run.
  for (let i = conversation.messages.length - 1; i >= 0 && conversation.messages[i]!.role !== "user"; i--) {
    const m = conversation.messages[i]!
    if (m.role === "assistant") for (const p of toolPartsOf(m)) counts[p.name] = (counts[p.name] ?? 0) + 1
  }
  return (calls: ReadonlyArray<ObservedCall>): { readonly name: string; readonly refusal: string } | null => {
    if (caps.maxCallsPerTool === null && Object.keys(caps.perTool).length === 0) return null
    let now: ToolCallCounts = counts
    for (const call of calls) {
      const admitted = admitToolCall(now, call.name, caps)
      if (admitted.refusal !== null) return { name: call.name, refusal: admitted.refusal }
      now = admitted.counts
    }
    return null
  }
}

/** The relay's text-call hook: only with the switch on, a protocol that has it, and offered tools. */
const textCallsFor = (protocol: Protocol, settings: ProxySettings, offered: ReadonlyArray<string>) => {
  const made = protocol.textCalls
  if (!settings.textToolCalls || made === undefined || offered.length === 0) return null
  return (watch: StreamWatch, tail: string): string | null => {
    if (watch.calls.length > 0) return null
    const found = textCallsIn(watch.text, offered)
    return found.calls.length === 0 ? null : made.streamEnd(watch, tail, found.calls)
  }
}
