/**
 * Where a request goes: the protocol its path names, and the upstream its model (or path) routes
 * to, with that upstream's retry budgets. The upstream comes from the config and the flags only,
 * never from the request.
 */
import { resolveRetryBudgets, type RetryBudgets, type RetryConfig } from "@loopguard/core/retry"
import type { Protocol } from "./protocol.js"
import { chatProtocol } from "./protocols/chat.js"
import { geminiProtocol, geminiRequestOf } from "./protocols/gemini.js"
import { messagesProtocol } from "./protocols/messages.js"
import { responsesProtocol } from "./protocols/responses.js"

/** The guarded endpoints, as paths below the agent's base URL (`…/v1`). */
const GUARDED: ReadonlyArray<readonly [string, Protocol]> = [
  ["/chat/completions", chatProtocol],
  ["/responses", responsesProtocol],
  ["/messages", messagesProtocol]
]

/** The path below the agent's base URL: `/v1/chat/completions` and `/chat/completions` are both `/chat/completions`. */
export const pathBelowBase = (path: string): string => (path === "/v1" ? "/" : path.startsWith("/v1/") ? path.slice(3) : path)

/** The protocol a POST to `path` (with `query`) speaks, or null for a path forwarded as is. */
export const protocolOf = (path: string, query = ""): Protocol | null => {
  const below = pathBelowBase(path)
  const fixed = GUARDED.find(([p]) => p === below)?.[1]
  if (fixed !== undefined) return fixed
  const gemini = geminiRequestOf(path, query)
  return gemini === null ? null : geminiProtocol(gemini.model, gemini.stream)
}

export interface RouteConfig {
  readonly upstream: string
  readonly provider?: string | undefined
  readonly config?: string | undefined
  /** The environment variable holding this route's upstream key (read by the host into `AuthPolicy.routeKeys`). */
  readonly keyEnv?: string | undefined
}

export interface ResolvedRoute {
  /** The `proxy.routes` key that matched (null: the default upstream). */
  readonly prefix: string | null
  /** The upstream base URL, without a trailing slash. */
  readonly base: string
  readonly budgets: RetryBudgets
  readonly retryableStatuses: ReadonlyArray<number>
  readonly chunkTimeoutMs: number
  /** The upstream is on `proxy.upstream`'s origin (scheme, host, port), so the key held for it may go there. */
  readonly onDefaultOrigin: boolean
}

export interface RoutingConfig {
  readonly upstream: string | null
  readonly routes: Readonly<Record<string, RouteConfig>>
  readonly retry?: RetryConfig | undefined
  readonly provider: Readonly<Record<string, { readonly chunkTimeoutMs?: number | undefined; readonly retry?: RetryConfig | undefined }>>
  readonly chunkTimeoutMs: number
}

/** Each config's routes as resolved, by prefix (null: the default upstream): every request resolves one, and its budgets do not change. */
const resolvedRoutes = new WeakMap<RoutingConfig, Map<string | null, ResolvedRoute | null>>()

/** The route for a model name and a path: the longest matching prefix, else the default upstream; null when neither. */
export const routeFor = (config: RoutingConfig, model: string | undefined, path: string): ResolvedRoute | null => {
  const matches = Object.entries(config.routes).filter(([prefix]) => (prefix.startsWith("/") ? path.startsWith(prefix) : model !== undefined && model.startsWith(prefix)))
  const prefix = matches.sort((a, b) => b[0].length - a[0].length)[0]?.[0] ?? null
  let resolved = resolvedRoutes.get(config)
  if (resolved === undefined) resolvedRoutes.set(config, (resolved = new Map()))
  if (!resolved.has(prefix)) resolved.set(prefix, resolveRoute(config, prefix))
  return resolved.get(prefix) ?? null
}

/** The route of one prefix of the config (null: the default upstream), its retry budgets merged. */
const resolveRoute = (config: RoutingConfig, prefix: string | null): ResolvedRoute | null => {
  const best = prefix === null ? undefined : config.routes[prefix]
  const upstream = best?.upstream ?? config.upstream
  if (upstream === null) return null
  const provider = best?.provider
  const retry = resolveRetryBudgets({ retry: config.retry, provider: config.provider }, provider)
  return {
    prefix: best === undefined ? null : prefix,
    base: upstream.replace(/\/+$/, ""),
    budgets: retry.budgets,
    retryableStatuses: retry.retryableStatuses,
    chunkTimeoutMs: (provider !== undefined ? config.provider[provider]?.chunkTimeoutMs : undefined) ?? config.chunkTimeoutMs,
    onDefaultOrigin: best === undefined || (config.upstream !== null && originOf(upstream) !== null && originOf(upstream) === originOf(config.upstream))
  }
}

/** A URL's origin (`https://host:port`), or null when it is no URL. */
const originOf = (url: string): string | null => {
  try {
    return new URL(url).origin
  } catch {
    return null
  }
}

const DOT = /^(?:\.|%2e)$/i
const DOT_DOT = /^(?:\.|%2e){2}$/i

/**
 * `path` with its `.` and `..` segments resolved as a URL parser would (percent-encoded `%2e` too,
 * and `\` as a separator, as in http URLs), or null when a `..` climbs above its root (such a path
 * would leave the upstream's base path once put below it) or it holds an encoded `/` or `\`.
 */
export const resolveDotSegments = (path: string): string | null => {
  // An encoded separator is refused: a server that decodes it before resolving dot segments
  // (`/v1/..%2f..%2fx`) would read a climb this function cannot see. No API path needs one.
  if (/%(2f|5c)/i.test(path)) return null
  const out: Array<string> = []
  const segments = path.split(/[/\\]/).slice(1)
  for (const [i, segment] of segments.entries()) {
    const dots = DOT.test(segment) ? 1 : DOT_DOT.test(segment) ? 2 : 0
    if (dots === 2 && out.pop() === undefined) return null
    if (dots === 0) out.push(segment)
    // `/a/.` and `/a/b/..` name a folder: the slash stays.
    else if (i === segments.length - 1) out.push("")
  }
  return `/${out.join("/")}`
}

/**
 * The path and query of a request target: an origin-form one (`/v1/models?x`) with its dot segments
 * resolved; of an absolute-form one (`GET http://host/x HTTP/1.1`) only its path and query, never
 * its host. Null for a target that is neither, or whose path climbs above its root (answered 400).
 */
export const requestTargetOf = (target: string): string | null => {
  let pathAndQuery = target
  if (!target.startsWith("/")) {
    try {
      const url = new URL(target)
      if (url.protocol !== "http:" && url.protocol !== "https:") return null
      pathAndQuery = `${url.pathname}${url.search}`
    } catch {
      return null
    }
  }
  const [path, query] = pathAndQuery.split(/\?(.*)/s, 2) as [string, string | undefined]
  const resolved = resolveDotSegments(path)
  return resolved === null ? null : `${resolved}${query !== undefined ? `?${query}` : ""}`
}

/**
 * The upstream URL for a request path (and query) below the agent's base URL. The servers refuse a
 * target requestTargetOf cannot read before it gets here; this throws rather than leave the base.
 */
export const upstreamUrl = (base: string, pathAndQuery: string): URL => {
  const target = requestTargetOf(pathAndQuery)
  if (target === null) throw new Error("loopguard proxy: the request path is not one below the upstream's base")
  const [path, query] = target.split(/\?(.*)/s, 2) as [string, string | undefined]
  return new URL(`${base}${pathBelowBase(path)}${query !== undefined && query !== "" ? `?${query}` : ""}`)
}
