/**
 * One guarded request (`POST …/chat/completions`, `…/responses`, `…/messages`): the verdict from
 * the history, then either the proxy's own answer (a stop) or the upstream call with the request
 * rewritten for the upstream only, its retries, and the reply relayed through the guard.
 */
import { describeGuardTrip, RepeatGuard, type RepeatGuardOptions } from "@loopguard/core/repeat"
import type { Incident } from "@loopguard/core/report"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { BackoffBoard } from "./backoff.js"
import { authorized, BodyTooLarge, clientHeaders, readBody, sendError, upstreamHeaders, type AuthPolicy } from "./http-util.js"
import { cutCallNotice, cutNotice, stopAnswer } from "./notices.js"
import type { Message } from "@loopguard/core/model"
import { parseJson, type Protocol, type StreamWatch } from "./protocol.js"
import { reminderMessages, replyMessage } from "./reply-record.js"
import { relayStream, type RelayEnd } from "./relay.js"
import { upstreamBody } from "./rewrite.js"
import { routeFor, upstreamUrl, type RoutingConfig } from "./routes.js"
import { sessionIdOf } from "./session-id.js"
import { errorBeforeContent } from "./early-error.js"
import { textCallsIn } from "./text-calls.js"
import { attempt, callWithRetries, type Attempt, type RetryEvent } from "./upstream.js"
import { judgeRequest, type ProxyAction, type Verdict, type VerdictConfig } from "./verdict.js"

/** The detector settings a request is judged and guarded with. */
export interface DetectorSettings {
  readonly verdict: VerdictConfig
  readonly guard: RepeatGuardOptions | null
}

export interface ProxySettings extends DetectorSettings {
  readonly routing: RoutingConfig
  /** Routes (by their `proxy.routes` key) with detector settings of their own. */
  readonly routeDetectors: ReadonlyMap<string, DetectorSettings>
  readonly sessionHeader: string
  /** Tool calls written as text become structured calls when the request offered the tool. */
  readonly textToolCalls: boolean
  readonly maxRequestBytes: number
  readonly maxResponseBytes: number
  readonly maxEventBytes: number
}

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
  readonly board: BackoffBoard
  readonly auth: AuthPolicy
  readonly onRetry: (session: string, e: RetryEvent) => void
  /** Called once per request, after the reply ended, with what the session store keeps of it. */
  readonly onRecord: (record: RequestRecord, messages: ReadonlyArray<Message>) => void
}

const headersOf = (session: string, action: ProxyAction): Record<string, string> => ({ "x-loopguard-session": session, "x-loopguard-action": action })

/** The stop answer's words from the verdict. */
const stopText = (verdict: Verdict): string => {
  const s = verdict.stop!
  return stopAnswer(s.loop, s.evidence, s.next)
}

export const handleGuarded = async (req: IncomingMessage, res: ServerResponse, protocol: Protocol, deps: HandlerDeps): Promise<void> => {
  const started = Date.now()
  const { settings } = deps
  if (!authorized(req.headers, deps.auth)) return sendError(res, protocol.name, 401, "loopguard proxy: present the proxy token as your API key")
  let raw: Buffer
  try {
    raw = await readBody(req, settings.maxRequestBytes)
  } catch (e) {
    return sendError(res, protocol.name, e instanceof BodyTooLarge ? 413 : 400, e instanceof Error ? e.message : "unreadable request body")
  }
  const body = parseJson(raw.toString("utf8"))
  const conversation = protocol.conversation(body)
  const session = sessionIdOf(req.headers, settings.sessionHeader, conversation)
  const route = routeFor(settings.routing, conversation.model, req.url ?? "/")
  if (route === null) return sendError(res, protocol.name, 502, `loopguard proxy: no upstream for model ${conversation.model ?? "(none)"}`)
  const detectors = (route.prefix !== null ? settings.routeDetectors.get(route.prefix) : undefined) ?? settings
  // A body that is not JSON is not ours to judge: the upstream answers it.
  const verdict: Verdict = body === undefined ? { action: "pass", inserts: [], cropCuts: false, stop: null, incidents: [] } : judgeRequest(conversation.messages, detectors.verdict)
  const base = { session, protocol: protocol.name, model: conversation.model, action: verdict.action, incidents: verdict.incidents }
  if (verdict.stop !== null) {
    const answer = protocol.answer(body, stopText(verdict))
    res.writeHead(200, { "content-type": answer.contentType, ...headersOf(session, "stop") })
    res.end(answer.body)
    const kept = [...conversation.messages, replyMessage(conversation, null, stopText(verdict), false)]
    deps.onRecord({ ...base, outcome: "answered", detail: verdict.stop.detector, status: 200, retries: 0, ms: Date.now() - started }, kept)
    return
  }
  const rewritten = verdict.inserts.length === 0 && !verdict.cropCuts ? raw : Buffer.from(JSON.stringify(upstreamBody(protocol, body, verdict.inserts, verdict.cropCuts)))
  const target = { url: upstreamUrl(route.base, req.url ?? "/"), key: route.base, budgets: route.budgets, retryableStatuses: route.retryableStatuses, chunkTimeoutMs: route.chunkTimeoutMs }
  const headers = { ...upstreamHeaders(req.headers, [settings.sessionHeader], deps.auth, protocol.name, true), "content-length": String(rewritten.length) }
  const gone = new AbortController()
  res.on("close", () => gone.abort())
  let retries = 0
  const send = () =>
    attempt(target, "POST", headers, rewritten, gone.signal).then((a): Attempt => {
      const early = a.ok && a.first !== null ? errorBeforeContent(protocol, body, a.first) : null
      if (!a.ok || early === null) return a
      a.abort()
      return { ok: false, error: early, body: null, res: null }
    })
  const opened = await callWithRetries(target, deps.board, send, gone.signal, (e) => {
    retries = e.attempt
    deps.onRetry(session, e)
  })
  const record = (outcome: RequestRecord["outcome"], status: number, watch: StreamWatch | null, detail?: string, notice?: string) => {
    const reply = watch === null ? [] : [replyMessage(conversation, watch, notice ?? null, outcome === "cut")]
    const kept = [...conversation.messages, ...reminderMessages(conversation, verdict.inserts), ...reply]
    deps.onRecord({ ...base, outcome, status, retries, ms: Date.now() - started, ...(detail !== undefined ? { detail } : {}) }, kept)
  }
  if (!opened.ok) {
    if (opened.res !== null && opened.body !== null) {
      // The upstream's own answer, as it gave it, once the retries are spent.
      res.writeHead(opened.error.status ?? 502, clientHeaders(opened.res.headers, headersOf(session, verdict.action), false))
      res.end(opened.body)
    } else sendError(res, protocol.name, 502, `loopguard proxy: the upstream failed: ${opened.error.message}`, headersOf(session, verdict.action))
    return record(gone.signal.aborted ? "client-gone" : "upstream-error", opened.error.status ?? 502, null, opened.error.message)
  }
  const streamed = String(opened.res.headers["content-type"] ?? "").includes("text/event-stream")
  const watch = protocol.watch(body)
  if (!streamed) {
    const status = await relayWhole(res, protocol, opened, { ...settings, guard: detectors.guard }, conversation.tools, headersOf(session, verdict.action))
    return record(status.cut !== undefined ? "cut" : "completed", status.code, null, status.cut)
  }
  res.writeHead(opened.res.statusCode ?? 200, clientHeaders(opened.res.headers, headersOf(session, verdict.action), false))
  const textCalls = textCallsFor(protocol, settings, conversation.tools)
  const relay = (o: typeof opened, w: StreamWatch) =>
    relayStream({
      protocol,
      watch: w,
      upstream: o.res,
      first: o.first,
      ended: o.ended,
      abortUpstream: o.abort,
      client: res,
      guard: detectors.guard,
      textCalls,
      limits: { maxResponseBytes: settings.maxResponseBytes, maxEventBytes: settings.maxEventBytes, chunkTimeoutMs: route.chunkTimeoutMs }
    })
  let end: RelayEnd = await relay(opened, watch)
  let shown = watch
  if (end.type === "cut-call" && !end.wrote) {
    // Nothing of the step reached the client yet: the step is asked for once more.
    const again = await callWithRetries(target, deps.board, send, gone.signal, () => {})
    if (again.ok) {
      shown = protocol.watch(body)
      end = await relay(again, shown)
    }
  }
  if (end.type === "cut-call") {
    const notice = cutCallNotice(end.name)
    if (!res.destroyed) res.end(end.opening + shown.close(notice))
    return record("cut", 200, shown, `the arguments of a call to ${end.name} were cut off`, notice)
  }
  if (end.type === "cut") return record("cut", 200, shown, describeGuardTrip(end.trip), end.notice)
  record(end.type, 200, shown, end.type === "failed" ? end.reason : undefined)
}

/** A reply that is not a stream: read whole (within the limit), guarded, then sent. */
const relayWhole = async (
  res: ServerResponse,
  protocol: Protocol,
  opened: Extract<Awaited<ReturnType<typeof attempt>>, { ok: true }>,
  settings: ProxySettings,
  offered: ReadonlyArray<string>,
  extra: Record<string, string>
): Promise<{ code: number; cut?: string }> => {
  const parts: Array<Buffer> = opened.first === null ? [] : [opened.first]
  let size = parts[0]?.length ?? 0
  const whole = await new Promise<Buffer | null>((resolve) => {
    opened.res.on("data", (b: Buffer) => {
      size += b.length
      if (size > settings.maxResponseBytes) {
        opened.abort()
        resolve(null)
      } else parts.push(b)
    })
    opened.res.on("end", () => resolve(Buffer.concat(parts)))
    opened.res.on("error", () => resolve(null))
    if (opened.ended()) resolve(Buffer.concat(parts))
    else opened.res.resume()
  })
  if (whole === null) {
    sendError(res, protocol.name, 502, `loopguard proxy: the reply failed or passed stream.maxResponseBytes (${settings.maxResponseBytes} bytes)`, extra)
    return { code: 502 }
  }
  const code = opened.res.statusCode ?? 200
  const json = parseJson(whole.toString("utf8"))
  const text = json === undefined ? "" : protocol.replyText(json)
  const trip = settings.guard === null || text === "" ? null : firstTrip(text, settings.guard)
  const found = trip === null && settings.textToolCalls && protocol.textCalls !== undefined && text !== "" ? textCallsIn(text, offered) : null
  const structured = found !== null && found.calls.length > 0 ? protocol.textCalls!.json(json, found.calls, found.prose) : null
  if (structured !== null) {
    const made = Buffer.from(JSON.stringify(structured))
    res.writeHead(code, { ...clientHeaders(opened.res.headers, extra, false), "content-length": String(made.length) })
    res.end(made)
    return { code }
  }
  if (trip === null) {
    res.writeHead(code, clientHeaders(opened.res.headers, extra, true))
    res.end(whole)
    return { code }
  }
  const cut = Buffer.from(JSON.stringify(protocol.withReplyText(json, text.slice(0, trip.at) + cutNotice(trip.what))))
  res.writeHead(code, { ...clientHeaders(opened.res.headers, extra, false), "content-length": String(cut.length) })
  res.end(cut)
  return { code, cut: trip.what }
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

/** Where in `text` the guard trips (fed in stream-sized pieces), or null. */
const firstTrip = (text: string, options: RepeatGuardOptions): { at: number; what: string } | null => {
  const guard = new RepeatGuard(options)
  const piece = 16
  for (let at = 0; at < text.length; at += piece) {
    const trip = guard.push(text.slice(at, at + piece))
    if (trip !== null) return { at: Math.min(text.length, at + piece), what: describeGuardTrip(trip) }
  }
  const last = guard.flush()
  return last === null ? null : { at: text.length, what: describeGuardTrip(last) }
}
