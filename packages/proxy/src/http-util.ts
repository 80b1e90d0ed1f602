/**
 * The HTTP plumbing of the proxy: the headers that may cross (hop-by-hop ones stay behind), client
 * auth, and the proxy's own error bodies in each protocol's shape.
 */
import { makeRedactor } from "@loopguard/core/try-best"
import { timingSafeEqual } from "node:crypto"
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from "node:http"
import type { ClientReply } from "./client-reply.js"
import { geminiStatus, messagesType, openAiError } from "./error-kinds.js"
import type { ProtocolName } from "./protocol.js"
import { upstreamUrl } from "./routes.js"

/** A key the client gave in the query goes upstream in Google's key header (only Google's APIs take a `key` parameter). */
const QUERY_KEY_HEADER = "x-goog-api-key"

/** The request headers an API reads a key from. */
const CREDENTIAL_HEADERS = ["authorization", "x-api-key", "x-goog-api-key", "api-key"] as const

const HOP_BY_HOP = new Set(["connection", "proxy-connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade", "host", "content-length"])

/**
 * Whether a header of `headers` is for this hop only: a fixed one, or one the message's own
 * `Connection` header names (RFC 9110 §7.6.1), which must not be passed on either.
 */
const hopByHopOf = (headers: IncomingHttpHeaders): ((name: string) => boolean) => {
  const named = new Set(
    String(headers["connection"] ?? "")
      .split(",")
      .map((n) => n.trim().toLowerCase())
      .filter((n) => n !== "")
  )
  return (name) => HOP_BY_HOP.has(name) || named.has(name)
}

export interface AuthPolicy {
  /** Clients must present this token (as their API key) when the proxy adds an upstream key itself. */
  readonly token: string | null
  /**
   * The key the proxy adds for `proxy.upstream`, and for routes on that upstream's origin (scheme,
   * host and port) only: a route to another host never gets it. Null, with no `routeKeys`: the
   * client's own auth headers go upstream untouched.
   */
  readonly upstreamKey: string | null
  /** Keys the proxy adds for routes of their own (`proxy.routes.<prefix>.keyEnv`), by route prefix. */
  readonly routeKeys?: ReadonlyMap<string, string> | undefined
}

/** Whether the proxy holds any upstream key: clients then present the token, and their credentials stay behind. */
export const holdsKeys = (auth: AuthPolicy): boolean => auth.upstreamKey !== null || (auth.routeKeys?.size ?? 0) > 0

/**
 * The key the proxy adds for a request on `route`: the route's own, else the held upstream key when
 * the route's upstream is on `proxy.upstream`'s origin, else none (a route to another host — a local
 * server, another provider — is sent no credential rather than the wrong provider's key).
 */
export const heldKeyFor = (auth: AuthPolicy, route: { readonly prefix: string | null; readonly onDefaultOrigin: boolean }): string | null =>
  (route.prefix !== null ? auth.routeKeys?.get(route.prefix) : undefined) ?? (route.onDefaultOrigin ? auth.upstreamKey : null)

const presented = (headers: IncomingHttpHeaders): string | undefined => {
  const bearer = /^Bearer\s+(.+)$/i.exec(String(headers["authorization"] ?? ""))?.[1]
  const apiKey = headers["x-api-key"] ?? headers["x-goog-api-key"]
  return bearer ?? (typeof apiKey === "string" ? apiKey : undefined)
}

/**
 * Every credential the request carries where an API reads keys from (Authorization, whatever its
 * scheme; x-api-key; x-goog-api-key; Azure's api-key; a `key` query parameter): what the session store must never keep,
 * should the conversation quote it (an agent that printed its environment, a curl command).
 */
export const credentialsOf = (headers: IncomingHttpHeaders, pathAndQuery = ""): ReadonlyArray<string> => {
  const fromQuery = queryKeyOf(pathAndQuery)
  const out: Array<string> = fromQuery === undefined ? [] : [fromQuery]
  for (const name of CREDENTIAL_HEADERS) {
    const value = headers[name]
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
      const credential = name === "authorization" ? v.replace(/^\S+\s+/, "") : v
      if (credential.trim() !== "") out.push(credential.trim())
      if (name === "authorization") out.push(...basicSecretsOf(v))
    }
  }
  return out
}

/**
 * What a `Basic` authorization carries decoded: `user:password` and the password alone, which a
 * conversation may quote as written (a curl command, a URL with its user part) rather than encoded.
 */
const basicSecretsOf = (value: string): ReadonlyArray<string> => {
  const m = /^basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(value)
  if (m === null) return []
  const decoded = Buffer.from(m[1]!, "base64").toString("utf8")
  const colon = decoded.indexOf(":")
  const password = colon === -1 ? "" : decoded.slice(colon + 1)
  // A password so short that redacting it would blank ordinary words is left to the pair.
  return [decoded, ...(password.length >= 8 ? [password] : [])].filter((s) => s.length >= 8)
}

/** The `key` query parameter of a request path (how Google's REST examples pass an API key), if any. */
export const queryKeyOf = (pathAndQuery: string): string | undefined => {
  const at = pathAndQuery.indexOf("?")
  if (at === -1) return undefined
  const key = new URLSearchParams(pathAndQuery.slice(at + 1)).get("key")
  return key === null || key === "" ? undefined : key
}

/**
 * Whether the client may use the proxy: always, unless the proxy holds the upstream key and the token
 * does not match. The token is read from the auth headers, else from a `key` query parameter.
 */
export const authorized = (headers: IncomingHttpHeaders, auth: AuthPolicy, pathAndQuery = ""): boolean => {
  if (!holdsKeys(auth)) return true
  const given = presented(headers) ?? queryKeyOf(pathAndQuery)
  if (given === undefined || auth.token === null) return false
  const a = Buffer.from(given)
  const b = Buffer.from(auth.token)
  return a.length === b.length && timingSafeEqual(a, b)
}

/**
 * The upstream URL of a request: the client's path and query below the route's base. When the proxy
 * holds the upstream key, a `key` query parameter (the proxy token) is dropped: the upstream key goes
 * in a header instead (upstreamHeaders).
 */
export const upstreamUrlOf = (base: string, pathAndQuery: string, auth: AuthPolicy): URL => {
  const url = upstreamUrl(base, pathAndQuery)
  if (holdsKeys(auth)) url.searchParams.delete("key")
  return url
}

/**
 * The request headers that go upstream: the client's own (auth included, untouched) unless the proxy
 * holds keys; then the client's credential stays behind and `key` (`heldKeyFor` the route) goes in its place, if any.
 */
export const upstreamHeaders = (headers: IncomingHttpHeaders, drop: ReadonlyArray<string>, auth: AuthPolicy, protocol: ProtocolName | null, guarded: boolean, key: string | null): OutgoingHttpHeaders => {
  const out: OutgoingHttpHeaders = {}
  const dropped = new Set(drop.map((h) => h.toLowerCase()))
  const hopByHop = hopByHopOf(headers)
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || hopByHop(name) || dropped.has(name)) continue
    out[name] = value
  }
  // The guard reads the stream's text: ask for it uncompressed.
  if (guarded) out["accept-encoding"] = "identity"
  if (holdsKeys(auth)) {
    // Every header that can carry the client's credential (the proxy token) stays behind: the
    // upstream gets the proxy's key in one of them, never the token in another (Azure's api-key).
    for (const name of CREDENTIAL_HEADERS) delete out[name]
    if (key !== null) {
      const header = keyHeaderOf(headers, protocol)
      out[header] = header === "authorization" ? `Bearer ${key}` : key
    }
  }
  return out
}

/**
 * Where the upstream key goes: the protocol's own header; on a path forwarded as is (no protocol),
 * the header the client put its token in, or Google's key header when the client put it in the query.
 */
const keyHeaderOf = (headers: IncomingHttpHeaders, protocol: ProtocolName | null): string => {
  if (protocol === "messages") return "x-api-key"
  if (protocol === "gemini") return "x-goog-api-key"
  if (protocol !== null) return "authorization"
  if (headers["x-goog-api-key"] !== undefined) return "x-goog-api-key"
  if (headers["x-api-key"] !== undefined) return "x-api-key"
  return headers["authorization"] !== undefined ? "authorization" : QUERY_KEY_HEADER
}

/** The secrets a client must never see: the upstream keys the proxy holds and its token. */
export const secretsOf = (auth: AuthPolicy): ReadonlyArray<string> => [auth.upstreamKey, ...(auth.routeKeys?.values() ?? []), auth.token].filter((s): s is string => s !== null)

/**
 * The upstream's response headers a client may see (length and framing are the proxy's own). An
 * upstream that echoes the key the proxy holds (a debug header, `www-authenticate`) has it redacted:
 * the client holds only the proxy token (`secrets`: secretsOf).
 */
export const clientHeaders = (
  headers: IncomingHttpHeaders,
  extra: Readonly<Record<string, string>>,
  keepLength: boolean,
  secrets: ReadonlyArray<string>
): OutgoingHttpHeaders => {
  const out: OutgoingHttpHeaders = {}
  const redact = makeRedactor(secrets, { authorization: false })
  const hopByHop = hopByHopOf(headers)
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue
    if (name === "content-length" || name === "content-encoding" ? !keepLength : hopByHop(name)) continue
    out[name] = Array.isArray(value) ? value.map(redact) : redact(value)
  }
  return { ...out, ...extra }
}

/** An error body in the shape the client's protocol uses. */
export const errorBody = (protocol: ProtocolName | null, status: number, message: string): string =>
  protocol === "gemini"
    ? JSON.stringify({ error: { code: status, message, status: geminiStatus(status) } })
    : protocol === "messages"
    ? JSON.stringify({ type: "error", error: { type: messagesType(status), message } })
    : JSON.stringify({ error: { message, ...openAiError(status) } })

/** An error answer in the client's protocol; a response already under way is just ended. */
export const sendError = (res: ClientReply, protocol: ProtocolName | null, status: number, message: string, extra: Readonly<Record<string, string>> = {}): void => {
  // The client left: there is nobody to tell.
  if (res.destroyed) return
  if (res.headersSent) {
    res.end()
    return
  }
  res.writeHead(status, { "content-type": "application/json", ...extra })
  res.end(errorBody(protocol, status, message))
}
