/**
 * A reply that is not a stream: read whole (within the response limit), then passed as it came,
 * cut where the repetition guard trips (the text up to there and the notice), or, with
 * `proxy.textToolCalls`, given the calls it wrote as text as structured calls.
 */
import { argumentsText, describeGuardTrip, type RepeatGuardPool } from "@loopguard/core/repeat"
import type { ClientReply } from "./client-reply.js"
import type { ProxySettings } from "./proxy-settings.js"
import type { Attempt, OpenAttempt } from "./upstream.js"
import { clientHeaders, sendError } from "./http-util.js"
import { redactBytes } from "./body-bytes.js"
import { cutCallDetail, cutCallNotice, cutNotice, refusalNotice } from "./notices.js"
import { callFault, carriesError, cutOffCall, parseJson, type ObservedCall, type Protocol } from "./protocol.js"
import { textCallsIn } from "./text-calls.js"

/** Why a whole reply could not be read: `again` when asking once more may well get it (it broke off or went silent). */
interface Unread {
  readonly why: string
  readonly again: boolean
}

/**
 * The body of a reply that is not a stream, whole; or why not: it broke, passed `limit` bytes, or
 * went silent for `idleMs` (the chunk timeout holds between a JSON body's chunks too).
 */
const readWhole = (opened: OpenAttempt, limit: number, idleMs: number): Promise<Buffer | Unread> => {
  const parts: Array<Buffer> = opened.first === null ? [] : [opened.first]
  let size = parts[0]?.length ?? 0
  return new Promise<Buffer | Unread>((resolve) => {
    const done = (result: Buffer | Unread) => {
      clearTimeout(timer)
      resolve(result)
    }
    const failed = (why: string, again: boolean) => {
      opened.abort()
      done({ why, again })
    }
    const timer = setTimeout(() => failed(`the reply went silent for ${idleMs} ms`, true), idleMs)
    opened.res.on("data", (b: Buffer) => {
      size += b.length
      timer.refresh()
      if (size > limit) failed(`the reply passed stream.maxResponseBytes (${limit} bytes)`, false)
      else parts.push(b)
    })
    opened.res.on("end", () => done(Buffer.concat(parts)))
    opened.res.on("error", () => done({ why: "the reply broke off", again: true }))
    if (opened.ended()) done(Buffer.concat(parts))
    else opened.res.resume()
  })
}

/** The name of the first call in a whole reply whose arguments were cut off, or null. */
const cutOffCallIn = (protocol: Protocol, json: unknown): string | null =>
  json === undefined || protocol.wholeCalls === undefined ? null : cutOffCall(protocol.wholeCalls.of(json))

/**
 * A reply whose call was cut off is asked for once more (`again`), as a streamed one is; when the
 * second one is cut off too (or fails), the first goes to the client without its calls, with the
 * notice in their place: a call that is not whole is never passed on.
 */
const wholeOnceMore = async (
  protocol: Protocol,
  first: { readonly opened: OpenAttempt; readonly json: any; readonly broken: string },
  again: () => Promise<Attempt>,
  limit: number,
  idleMs: number
): Promise<{ readonly opened: OpenAttempt; readonly whole: Buffer; readonly json: any } | { readonly refused: any }> => {
  const second = await again()
  if (second.ok) {
    const whole = await readWhole(second, limit, idleMs)
    const json = Buffer.isBuffer(whole) ? parseJson(whole.toString("utf8")) : undefined
    if (Buffer.isBuffer(whole) && json !== undefined && cutOffCallIn(protocol, json) === null) return { opened: second, whole, json }
  }
  const fault = callFault(protocol.wholeCalls!.of(first.json), first.broken)
  return { refused: protocol.wholeCalls!.refused(first.json, protocol.replyText(first.json) + cutCallNotice(first.broken, fault)) }
}

/** What a whole reply is judged and sent with. */
export interface WholeReplyContext {
  readonly settings: ProxySettings
  /** The tools the request offered (calls written as text may name only these). */
  readonly offered: ReadonlyArray<string>
  /** The proxy's own response headers (session, action). */
  readonly extra: Record<string, string>
  /** The step asked for once more (a call was cut off). */
  readonly again: () => Promise<Attempt>
  /** What the client must never see in the reply (the upstream key the proxy holds, its token). */
  readonly secrets: ReadonlyArray<string>
  /** The longest silence between the body's chunks (the route's `stream.chunkTimeoutMs`). */
  readonly chunkTimeoutMs: number
  /** Why the reply's calls must not be passed on (a tool past its cap: `toolCaps`), or null. */
  readonly refuseCalls: (calls: ReadonlyArray<ObservedCall>) => { readonly name: string; readonly refusal: string } | null
}

/** How a whole reply ended: its status, why it was cut or why it failed, and the reply the client got (its JSON; absent when none was sent, or it was not JSON). */
export interface WholeReplyEnd {
  readonly code: number
  readonly cut?: string
  /** The reply could not be read whole (it broke off, went silent, passed the limit): the client got the protocol's error. */
  readonly failed?: string
  readonly sent?: unknown
}

const ERROR_AS_SUCCESS = "the upstream answered with an error under a success status"

/** A reply read whole, its body parsed once (undefined: not JSON). */
interface Answer {
  readonly opened: OpenAttempt
  readonly read: Buffer | Unread
  readonly json: any
}

const answerOf = async (opened: OpenAttempt, context: WholeReplyContext): Promise<Answer> => {
  const read = await readWhole(opened, context.settings.maxResponseBytes, context.chunkTimeoutMs)
  return { opened, read, json: Buffer.isBuffer(read) ? parseJson(read.toString("utf8")) : undefined }
}

/**
 * A protocol's own reply object (`choices`, `output`, `content`, `candidates`, or an `object` /
 * `type` naming it): its answer, whatever members it has besides (a Responses object that `failed`
 * says so itself, and its SDK reads it).
 */
const isReplyObject = (json: any): boolean =>
  ["choices", "output", "content", "candidates"].some((k) => Array.isArray(json?.[k])) || typeof json?.object === "string" || json?.type === "message"

/** A 2xx reply whose body is an error and nothing else (`200 {"error": …}`): the upstream failed, whatever its status said. */
const errorAsSuccess = (a: Answer): boolean => Buffer.isBuffer(a.read) && (a.opened.res.statusCode ?? 200) < 300 && carriesError(a.json) && !isReplyObject(a.json)

/** A body that starts as JSON and does not parse: cut short (a worker that died mid-write, a proxy's size limit). */
const cutJson = (a: Answer): boolean => Buffer.isBuffer(a.read) && a.json === undefined && /^\s*[{[]/.test(a.read.subarray(0, 256).toString("utf8"))

/**
 * A 2xx body that is no reply of any protocol, whatever its status said: empty (a worker that died),
 * a page (a gateway's HTML login page), or JSON cut short, read plain. Other bodies that are not JSON
 * (events sent without their content type, a coding the proxy cannot read) pass as they came.
 */
const noReplyBody = (a: Answer): boolean =>
  Buffer.isBuffer(a.read) &&
  (a.opened.res.statusCode ?? 200) < 300 &&
  a.json === undefined &&
  a.opened.res.headers["content-encoding"] === undefined &&
  (/^\s*(<|$)/.test(a.read.subarray(0, 256).toString("utf8")) || cutJson(a))

/** What a body that is no reply held, for its error: its size and type, never its text. */
const bodyShape = (a: Answer): string => {
  const size = Buffer.isBuffer(a.read) ? a.read.length : 0
  if (size === 0) return "an empty body"
  const type = String(a.opened.res.headers["content-type"] ?? "").split(";")[0]!.trim()
  return `${size} bytes of ${type === "" ? "no content type" : type}, ${cutJson(a) ? "JSON that does not parse (cut short)" : "a page"}`
}

/**
 * The reply read whole. Nothing of it reached the client yet: one that broke off, went silent,
 * answered an error under a success status, or answered a body that is no reply is asked for once more.
 */
const readAnswer = async (first: OpenAttempt, context: WholeReplyContext): Promise<Answer> => {
  const answer = await answerOf(first, context)
  if (!(Buffer.isBuffer(answer.read) ? errorAsSuccess(answer) || noReplyBody(answer) : answer.read.again)) return answer
  const second = await context.again()
  return second.ok ? answerOf(second, context) : answer
}

/** A reply that is not a stream: read whole (within the limit), guarded, then sent. */
export const relayWhole = async (res: ClientReply, protocol: Protocol, firstOpened: OpenAttempt, context: WholeReplyContext): Promise<WholeReplyEnd> => {
  const { settings, offered, extra, again, secrets, chunkTimeoutMs } = context
  const answered = await readAnswer(firstOpened, context)
  let opened = answered.opened
  const read = answered.read
  if (!Buffer.isBuffer(read)) {
    sendError(res, protocol.name, 502, `loopguard proxy: ${read.why}`, extra)
    return { code: 502, failed: read.why }
  }
  if (noReplyBody(answered)) {
    // Passed on as the upstream's failure, in the client's protocol: its SDK reports (and may retry) a
    // 502 that says what came, where an HTML page or nothing under 200 fails as a parse error of its own.
    const why = `the upstream answered ${opened.res.statusCode ?? 200} with ${bodyShape(answered)}`
    sendError(res, protocol.name, 502, `loopguard proxy: ${why}`, extra)
    return { code: 502, failed: why }
  }
  if (errorAsSuccess(answered)) {
    // Passed on as the failure it is: the client's SDK raises the upstream's own error, not an empty reply.
    const sent = redactBytes(read, secrets)
    res.writeHead(502, { ...clientHeaders(opened.res.headers, extra, true, secrets), "content-length": String(sent.length) })
    res.end(sent)
    return { code: 502, failed: ERROR_AS_SUCCESS }
  }
  let whole = read
  let json = answered.json
  const broken = cutOffCallIn(protocol, json)
  if (broken !== null) {
    const next = await wholeOnceMore(protocol, { opened, json, broken }, again, settings.maxResponseBytes, chunkTimeoutMs)
    if ("refused" in next) return sendJson(res, opened, next.refused, context, cutCallDetail(broken, callFault(protocol.wholeCalls!.of(json), broken)))
    ;({ opened, whole, json } = next)
  }
  const code = opened.res.statusCode ?? 200
  const text = json === undefined ? "" : protocol.replyText(json)
  const refused = json === undefined || protocol.wholeCalls === undefined ? null : context.refuseCalls(protocol.wholeCalls.of(json))
  if (refused !== null) return sendJson(res, opened, protocol.wholeCalls!.refused(json, text + refusalNotice(refused.refusal)), context, refused.refusal)
  // A call whose arguments loop (a file written over and over) is taken out, as a streamed one is cut.
  const looping = json === undefined || protocol.wholeCalls === undefined || settings.guards === null ? null : loopingCall(protocol.wholeCalls.of(json), settings.guards.arguments)
  if (looping !== null) return sendJson(res, opened, protocol.wholeCalls!.refused(json, text + cutNotice(looping.what)), context, looping.what)
  const trip = settings.guards === null || text === "" ? null : firstTrip(text, settings.guards.replies)
  const found = trip === null && settings.textToolCalls && protocol.textCalls !== undefined && text !== "" ? textCallsIn(text, offered) : null
  const structured = found !== null && found.calls.length > 0 ? protocol.textCalls!.json(json, found.calls, found.prose) : null
  if (structured !== null) return sendJson(res, opened, structured, context)
  if (trip === null) {
    const sent = redactBytes(whole, secrets)
    // An encoding the proxy could not read (it decodes gzip, deflate and br) stays named.
    res.writeHead(code, { ...clientHeaders(opened.res.headers, extra, true, secrets), "content-length": String(sent.length) })
    res.end(sent)
    return json === undefined ? { code } : { code, sent: json }
  }
  return sendJson(res, opened, protocol.withReplyText(json, text.slice(0, trip.at) + cutNotice(trip.what)), context, trip.what)
}

/** The reply as the proxy changed it (cut, its calls refused or made structured), with its own length. */
const sendJson = (res: ClientReply, opened: OpenAttempt, json: unknown, context: WholeReplyContext, cut?: string): WholeReplyEnd => {
  const code = opened.res.statusCode ?? 200
  const made = redactBytes(Buffer.from(JSON.stringify(json)), context.secrets)
  res.writeHead(code, { ...clientHeaders(opened.res.headers, context.extra, false, context.secrets), "content-length": String(made.length) })
  res.end(made)
  return cut === undefined ? { code, sent: json } : { code, cut, sent: json }
}

/** The first call whose arguments trip the guard (escaped line breaks and tabs read as such), or null. */
const loopingCall = (calls: ReadonlyArray<ObservedCall>, guards: RepeatGuardPool): { at: number; what: string } | null => {
  for (const call of calls) {
    const trip = firstTrip(argumentsText(call.args), guards)
    if (trip !== null) return trip
  }
  return null
}

/** Where in `text` the guard trips (fed in stream-sized pieces), or null. */
const firstTrip = (text: string, guards: RepeatGuardPool): { at: number; what: string } | null => {
  const guard = guards.take()
  try {
    const piece = 16
    for (let at = 0; at < text.length; at += piece) {
      const trip = guard.push(text.slice(at, at + piece))
      if (trip !== null) return { at: Math.min(text.length, at + piece), what: describeGuardTrip(trip) }
    }
    const last = guard.flush()
    return last === null ? null : { at: text.length, what: describeGuardTrip(last) }
  } finally {
    guards.give(guard)
  }
}
