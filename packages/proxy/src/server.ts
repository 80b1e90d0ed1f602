/**
 * The proxy as a server: `startProxy` listens (127.0.0.1 by default) and routes each request, and
 * `ProxyServer.layer` serves it for the life of a Layer (acquired on build, closed on release).
 *
 * Built on the runtime's own HTTP stack rather than the platform's HttpServer: the relay forwards
 * each upstream event as the exact bytes that arrived, writes it the moment it is whole, and
 * pauses the upstream when a client reads slowly. On Node that is node:http; on Bun it is
 * `Bun.serve` and fetch, which cost far less per chunk there than Bun's node:http (see
 * docs/proxy.md). The handler and the relay are the same on both (client-reply.ts, fetch-reply.ts).
 */
import type { Message } from "@loopguard/core/model"
import type { LoopguardConfig } from "@loopguard/effect/config"
import { configValueProblems, repeatGuardOptionsOf } from "@loopguard/effect/config"
import { upstreamProblem } from "./upstream-url.js"
import { OutageMemo } from "./outage.js"
import type { SessionStoreShape } from "@loopguard/effect/store"
import { Context, Data, Effect, Layer, type Scope } from "effect"
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import { FetchClientReply, fetchClientRequest, nodeClientRequest, type ClientReply, type ClientRequest } from "./client-reply.js"
import type { AddressInfo, Socket } from "node:net"
import { memoryBackoff, type BackoffBoard } from "./backoff.js"
import { handleGuarded, type HandlerDeps, type RequestRecord } from "./handler.js"
import { replyGuardsOf, type DetectorSettings, type ProxySettings } from "./proxy-settings.js"
import { errorBody, secretsOf, sendError, type AuthPolicy } from "./http-util.js"
import { hostRefusal, originRefusal } from "./web-origin.js"
import { passThrough, passThroughFetch } from "./passthrough.js"
import type { Protocol } from "./protocol.js"
import { makeRecorder, type Recorder } from "./recorder.js"
import { protocolOf, requestTargetOf } from "./routes.js"
import { TurnMemo } from "./turn-judge.js"
import type { RetryEvent } from "./upstream.js"

export type HttpStack = "bun" | "node"

/** The part of Bun's server API the proxy uses, typed here: the package is built and used without Bun's types. */
interface BunServeOptions {
  readonly hostname: string
  readonly port: number
  readonly idleTimeout: number
  readonly maxRequestBodySize: number
  readonly reusePort: boolean
  readonly fetch: (request: Request) => Response | Promise<Response>
  readonly error: (e: Error) => Response
}
interface BunServer {
  readonly port?: number
  readonly stop: (closeActiveConnections?: boolean) => Promise<void>
}
const bunRuntime = (globalThis as { Bun?: { readonly serve: (options: BunServeOptions) => BunServer } }).Bun
const onBun = bunRuntime !== undefined

/** Where the proxy reports what it did (log lines for people, JSON lines for machines). */
export type ProxyEvent =
  | { readonly type: "request"; readonly record: RequestRecord }
  | { readonly type: "retry"; readonly session: string; readonly retry: RetryEvent }
  | { readonly type: "store-error"; readonly message: string }

export interface ProxyOptions {
  /** The whole config; `proxy.upstream` and `proxy.routes` say where requests go. */
  readonly config: LoopguardConfig
  readonly host: string
  readonly port: number
  /** The session store requests are written to; none: nothing is kept. */
  readonly store?: SessionStoreShape
  /**
   * Values the store never holds, besides each request's credentials and the key and token the
   * proxy holds: the CLI passes its environment's credentials (a model that repeats a key a tool
   * printed must not put it in the session).
   */
  readonly secrets?: ReadonlyArray<string>
  /** Shared backoff (the store's, for replicas); default: this process only. */
  readonly board?: BackoffBoard
  readonly auth?: AuthPolicy
  readonly onEvent?: (event: ProxyEvent) => void
  /**
   * The HTTP server and client: "bun" (`Bun.serve` and fetch, Bun's own, the cheaper per chunk
   * there) or "node" (node:http both ways). Default: "bun" on Bun, "node" on Node.
   */
  readonly httpStack?: HttpStack
  /** Per route (its `proxy.routes` key): a whole config whose detector settings apply to that route. */
  readonly routeConfigs?: Readonly<Record<string, LoopguardConfig>>
  /**
   * Listen with SO_REUSEPORT, so that several processes serve one address and the kernel spreads
   * the connections among them (`loopguard proxy --workers N`; Linux). Default false.
   */
  readonly reusePort?: boolean
}

export interface RunningProxy {
  /** `http://host:port`: agents are given `url + "/v1"`. */
  readonly url: string
  readonly host: string
  readonly port: number
  /** Resolves once every store write queued so far has finished. */
  readonly settled: () => Promise<void>
  readonly close: () => Promise<void>
}

const detectorsOf = (config: LoopguardConfig): DetectorSettings => ({ verdict: config, guards: config.repeat.enabled ? replyGuardsOf(repeatGuardOptionsOf(config.repeat)) : null })

/** The handler's settings from the config (and the routes' own configs). */
export const settingsOf = (config: LoopguardConfig, routeConfigs: Readonly<Record<string, LoopguardConfig>> = {}): ProxySettings => ({
  ...detectorsOf(config),
  routeDetectors: new Map(Object.entries(routeConfigs).map(([prefix, c]) => [prefix, detectorsOf(c)])),
  routing: { upstream: config.proxy.upstream, routes: config.proxy.routes, retry: config.retry, provider: config.provider, chunkTimeoutMs: config.stream.chunkTimeoutMs },
  sessionHeader: config.proxy.sessionHeader,
  textToolCalls: config.proxy.textToolCalls,
  textActions: config.proxy.textActions,
  toolCaps: config.toolCaps,
  maxRequestBytes: config.proxy.maxRequestBytes,
  requestBodyTimeoutMs: config.proxy.requestBodyTimeoutMs,
  allowedOrigins: config.proxy.allowedOrigins,
  maxResponseBytes: config.stream.maxResponseBytes,
  maxEventBytes: config.stream.maxEventBytes
})

export const HEALTH_PATH = "/loopguard/health"

/** What the guarded handler needs, from the options. */
const depsOf = (options: ProxyOptions, recorder: Recorder | null, board: BackoffBoard, stack: HttpStack): HandlerDeps => {
  const emit = options.onEvent ?? (() => {})
  return {
    settings: settingsOf(options.config, options.routeConfigs),
    memo: new TurnMemo(),
    board,
    outage: new OutageMemo(),
    auth: options.auth ?? { token: null, upstreamKey: null },
    upstreamClient: stack === "bun" ? "fetch" : "node",
    onRetry: (session: string, retry: RetryEvent) => emit({ type: "retry", session, retry }),
    onRecord: (record: RequestRecord, messages: ReadonlyArray<Message>, credentials: ReadonlyArray<string>) => {
      emit({ type: "request", record })
      recorder?.record(record.session, messages, credentials)
    }
  }
}

const healthOf = (options: ProxyOptions): string => JSON.stringify({ status: "ok", upstream: options.config.proxy.upstream !== null, routes: Object.keys(options.config.proxy.routes).length })

const guard = (req: ClientRequest, res: ClientReply, protocol: Protocol, deps: HandlerDeps): void => {
  handleGuarded(req, res, protocol, deps).catch((e: unknown) => sendError(res, protocol.name, 500, `loopguard proxy: internal error: ${e instanceof Error ? e.message : String(e)}`))
}

/**
 * A request target the proxy will not serve (a path whose `..` climbs above the root, a request
 * line that is no URL): 400 in the shape of the protocol its path names.
 */
const BAD_TARGET = "loopguard proxy: the request path climbs above the upstream's base path or is not a path"
const badTargetProtocol = (method: string | undefined, target: string) => {
  const [path, query = ""] = target.split(/\?(.*)/s, 2) as [string, string | undefined]
  return method === "POST" ? (protocolOf(path, query)?.name ?? null) : null
}

/** The request handler of the node:http server. */
const nodeRoute = (options: ProxyOptions, deps: HandlerDeps) => (req: IncomingMessage, res: ServerResponse) => {
  // node:http passes the target as the client wrote it: dot segments unresolved, or a whole URL.
  const target = requestTargetOf(req.url ?? "/")
  if (target === null) return sendError(res, badTargetProtocol(req.method, req.url ?? "/"), 400, BAD_TARGET)
  req.url = target
  const [path, query = ""] = target.split(/\?(.*)/s, 2) as [string, string | undefined]
  const protocol = req.method === "POST" ? protocolOf(path, query) : null
  const misaddressed = hostRefusal(req.headers.host, options.host)
  if (misaddressed !== null) return sendError(res, protocol?.name ?? null, 403, misaddressed)
  if (req.method === "GET" && path === HEALTH_PATH) {
    res.writeHead(200, { "content-type": "application/json" })
    res.end(healthOf(options))
    return
  }
  const refused = originRefusal(req.headers.origin, deps.settings.allowedOrigins)
  if (refused !== null) return sendError(res, protocol?.name ?? null, 403, refused)
  if (protocol === null) return passThrough(req, res, deps.settings, deps.auth)
  guard(nodeClientRequest(req), res, protocol, deps)
}

/** A 403 in the shape of the protocol the path names (a plain JSON error otherwise). */
const forbidden = (protocol: Protocol | null, message: string): Response =>
  new Response(errorBody(protocol?.name ?? null, 403, message), { status: 403, headers: { "content-type": "application/json" } })

/**
 * The path and query of a request to Bun's server, read against a placeholder base: with no usable
 * Host (HTTP/1.0 without one, `Host: a@b`, an empty one) Bun gives only the path, and with a Host no
 * URL can hold (`127.0.0.1:99999`) a URL that does not parse, which failed the request with a 500.
 * The Host check judges the header itself.
 */
export const requestUrlOf = (raw: string): URL => {
  try {
    return new URL(raw, "http://host.invalid")
  } catch {
    const path = raw.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, "")
    // Appended, not resolved: a path of "//name/…" stays a path, never an authority.
    return new URL(`http://host.invalid${path.startsWith("/") ? path : `/${path}`}`)
  }
}

/** The request handler of Bun's server. */
const fetchRoute =
  (options: ProxyOptions, deps: HandlerDeps) =>
  (request: Request): Response | Promise<Response> => {
    const url = requestUrlOf(request.url)
    // Bun resolves dot segments before the handler sees the URL; the check stays for any runtime that does not.
    if (requestTargetOf(url.pathname + url.search) === null) return new Response(errorBody(badTargetProtocol(request.method, url.pathname + url.search), 400, BAD_TARGET), { status: 400, headers: { "content-type": "application/json" } })
    const protocol = request.method === "POST" ? protocolOf(url.pathname, url.search.slice(1)) : null
    const misaddressed = hostRefusal(request.headers.get("host") ?? undefined, options.host)
    if (misaddressed !== null) return forbidden(protocol, misaddressed)
    if (request.method === "GET" && url.pathname === HEALTH_PATH) return new Response(healthOf(options), { headers: { "content-type": "application/json" } })
    const refused = originRefusal(request.headers.get("origin") ?? undefined, deps.settings.allowedOrigins)
    if (refused !== null) return forbidden(protocol, refused)
    if (protocol === null) return passThroughFetch(request, url.pathname + url.search, deps.settings, deps.auth)
    const reply = new FetchClientReply(request.signal)
    guard(fetchClientRequest(request, url.pathname + url.search), reply, protocol, deps)
    return reply.response
  }

interface Listening {
  readonly port: number
  readonly close: () => Promise<void>
}

const listenNode = async (options: ProxyOptions, deps: HandlerDeps): Promise<Listening> => {
  const { createServer } = await import("node:http")
  const server: Server = createServer(nodeRoute(options, deps))
  const sockets = new Set<Socket>()
  server.on("connection", (socket: Socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen({ port: options.port, host: options.host, reusePort: options.reusePort === true }, () => {
      server.off("error", reject)
      resolve()
    })
  })
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        for (const socket of sockets) socket.destroy()
      })
  }
}

const listenBun = (options: ProxyOptions, deps: HandlerDeps): Listening => {
  if (bunRuntime === undefined) throw new Error('httpStack "bun" needs the Bun runtime; on Node the proxy serves with node:http')
  const server = bunRuntime.serve({
    hostname: options.host,
    port: options.port,
    // A stream may be quiet for as long as the chunk timeout allows: the relay times it out, not the server.
    idleTimeout: 0,
    // The handler bounds guarded bodies itself (proxy.maxRequestBytes, answered in the client's protocol).
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    reusePort: options.reusePort === true,
    fetch: fetchRoute(options, deps),
    error: (e) => new Response(errorBody(null, 500, `loopguard proxy: internal error: ${e.message}`), { status: 500, headers: { "content-type": "application/json" } })
  })
  return { port: server.port ?? options.port, close: () => server.stop(true) }
}

/** The proxy's base address for `host` and `port` (an IPv6 host in brackets). */
export const proxyUrl = (host: string, port: number): string => `http://${host.includes(":") ? `[${host}]` : host}:${port}`

/** Starts the proxy; resolves once it accepts connections. */
export const startProxy = async (options: ProxyOptions): Promise<RunningProxy> => {
  const refused = optionsProblem(options)
  if (refused !== null) throw new ProxyStartError({ message: `loopguard proxy: ${refused}` })
  const stack = options.httpStack ?? (onBun ? "bun" : "node")
  if (stack === "bun" && !onBun) throw new Error('httpStack "bun" needs the Bun runtime; on Node the proxy serves with node:http')
  const board = options.board ?? memoryBackoff()
  const held = [...(options.auth === undefined ? [] : secretsOf(options.auth)), ...(options.secrets ?? [])].filter((k): k is string => typeof k === "string" && k !== "")
  const recorder = options.store === undefined ? null : makeRecorder(options.store, (message) => options.onEvent?.({ type: "store-error", message }), options.config.store.leaseMs, held)
  const deps = depsOf(options, recorder, board, stack)
  let listening: Awaited<ReturnType<typeof listenNode>>
  try {
    listening = stack === "bun" ? listenBun(options, deps) : await listenNode(options, deps)
  } catch (e) {
    throw listenFailure(options, e)
  }
  const host = options.host
  let closed: Promise<void> | undefined
  return {
    url: proxyUrl(host, listening.port),
    host,
    port: listening.port,
    settled: () => recorder?.idle() ?? Promise.resolve(),
    close: () => (closed ??= listening.close().then(() => recorder?.idle()))
  }
}

/**
 * Why the proxy cannot start with these options, or null: checked before it listens, as the CLI
 * checks its flags, so a library caller's mistake (a config that does not decode, no upstream, an
 * upstream that is no http(s) base URL) is one error at start, not a 500 on every request.
 */
const optionsProblem = (options: ProxyOptions): string | null => {
  const problems = configValueProblems(options.config)
  if (problems.length > 0) return problems.slice(0, 3).join("; ") + (problems.length > 3 ? ` (and ${problems.length - 3} more)` : "")
  const { upstream, routes } = options.config.proxy
  if (upstream === null && Object.keys(routes).length === 0) return "no upstream: set config.proxy.upstream (or config.proxy.routes)"
  const bases: ReadonlyArray<readonly [string, string]> = [
    ...(upstream === null ? [] : [["config.proxy.upstream", upstream] as const]),
    ...Object.entries(routes).map(([prefix, route]) => [`config.proxy.routes[${JSON.stringify(prefix)}].upstream`, route.upstream] as const)
  ]
  for (const [field, url] of bases) {
    const problem = upstreamProblem(url, "allowed")
    if (problem !== null) return `${field}: ${problem}`
  }
  return null
}

/** The proxy could not listen (the address is taken, or not one this machine has). */
export class ProxyStartError extends Data.TaggedError("ProxyStartError")<{ readonly message: string }> {}

/** Why listening failed, in the same words on either runtime's stack (Node says EADDRINUSE, Bun asks whether the port is in use). */
const listenFailure = (options: Pick<ProxyOptions, "host" | "port">, e: unknown): ProxyStartError => {
  const said = e instanceof Error ? e.message : String(e)
  const why = /EADDRINUSE|in use/i.test(said) ? "the address is already in use" : /EADDRNOTAVAIL|EACCES/.test(said) ? said.replace(/^listen /, "") : said
  return new ProxyStartError({ message: `could not listen on ${options.host}:${options.port}: ${why}` })
}

/** The proxy for the life of a scope: listening once acquired, closed (writes flushed) on release. */
export const makeProxyServer = (options: ProxyOptions): Effect.Effect<RunningProxy, ProxyStartError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: () => startProxy(options),
      catch: (e) => (e instanceof ProxyStartError ? e : listenFailure(options, e))
    }),
    (proxy) => Effect.promise(() => proxy.close())
  ).pipe(Effect.withSpan("ProxyServer.start"))

/** The running proxy as a service: its address for whoever needs it (tests, the CLI's ready line). */
export class ProxyServer extends Context.Service<ProxyServer, RunningProxy>()("loopguard/ProxyServer") {
  static readonly layer = (options: ProxyOptions): Layer.Layer<ProxyServer, ProxyStartError> => Layer.effect(ProxyServer, makeProxyServer(options))
}
