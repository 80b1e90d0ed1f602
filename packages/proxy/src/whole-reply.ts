/**
 * A reply that is not a stream: read whole (within the response limit), then passed as it came,
 * cut where the repetition guard trips (the text up to there and the notice), or, with
 * `proxy.textToolCalls`, given the calls it wrote as text as structured calls.
 */
import { describeGuardTrip, RepeatGuard, type RepeatGuardOptions } from "@loopguard/core/repeat"
import type { ClientReply } from "./client-reply.js"
import type { ProxySettings } from "./proxy-settings.js"
import type { OpenAttempt } from "./upstream.js"
import { clientHeaders, sendError } from "./http-util.js"
import { cutNotice } from "./notices.js"
import { parseJson, type Protocol } from "./protocol.js"
import { textCallsIn } from "./text-calls.js"

/** A reply that is not a stream: read whole (within the limit), guarded, then sent. */
export const relayWhole = async (
  res: ClientReply,
  protocol: Protocol,
  opened: OpenAttempt,
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
