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
}

export interface ResolvedRoute {
  /** The `proxy.routes` key that matched (null: the default upstream). */
  readonly prefix: string | null
  /** The upstream base URL, without a trailing slash. */
  readonly base: string
  readonly budgets: RetryBudgets
  readonly retryableStatuses: ReadonlyArray<number>
  readonly chunkTimeoutMs: number
}

export interface RoutingConfig {
  readonly upstream: string | null
  readonly routes: Readonly<Record<string, RouteConfig>>
  readonly retry?: RetryConfig | undefined
  readonly provider: Readonly<Record<string, { readonly chunkTimeoutMs?: number | undefined; readonly retry?: RetryConfig | undefined }>>
  readonly chunkTimeoutMs: number
}

/** The route for a model name and a path: the longest matching prefix, else the default upstream; null when neither. */
export const routeFor = (config: RoutingConfig, model: string | undefined, path: string): ResolvedRoute | null => {
  const matches = Object.entries(config.routes).filter(([prefix]) => (prefix.startsWith("/") ? path.startsWith(prefix) : model !== undefined && model.startsWith(prefix)))
  const [prefix, best] = matches.sort((a, b) => b[0].length - a[0].length)[0] ?? [null, undefined]
  const upstream = best?.upstream ?? config.upstream
  if (upstream === null) return null
  const provider = best?.provider
  const retry = resolveRetryBudgets({ retry: config.retry, provider: config.provider }, provider)
  return {
    prefix: best === undefined ? null : prefix,
    base: upstream.replace(/\/+$/, ""),
    budgets: retry.budgets,
    retryableStatuses: retry.retryableStatuses,
    chunkTimeoutMs: (provider !== undefined ? config.provider[provider]?.chunkTimeoutMs : undefined) ?? config.chunkTimeoutMs
  }
}

/** The upstream URL for a request path (and query) below the agent's base URL. */
export const upstreamUrl = (base: string, pathAndQuery: string): URL => {
  const [path, query] = pathAndQuery.split(/\?(.*)/s, 2) as [string, string | undefined]
  return new URL(`${base}${pathBelowBase(path)}${query !== undefined && query !== "" ? `?${query}` : ""}`)
}
