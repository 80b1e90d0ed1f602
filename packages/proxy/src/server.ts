/**
 * The proxy as a server: `startProxy` listens (127.0.0.1 by default) and routes each request, and
 * `ProxyServer.layer` serves it for the life of a Layer (acquired on build, closed on release).
 *
 * Built on node:http rather than the platform's HttpServer: the relay forwards each upstream
 * event as the exact bytes that arrived, writes it the moment it is whole, and pauses the
 * upstream when a client reads slowly; node's request/response objects give all three without a
 * body stream in between (see docs/proxy.md).
 */
import type { Message } from "@loopguard/core/model"
import type { LoopguardConfig } from "@loopguard/effect/config"
import { repeatGuardOptionsOf } from "@loopguard/effect/config"
import type { SessionStoreShape } from "@loopguard/effect/store"
import { Context, Data, Effect, Layer, type Scope } from "effect"
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import type { AddressInfo, Socket } from "node:net"
import { memoryBackoff, type BackoffBoard } from "./backoff.js"
import { handleGuarded, type DetectorSettings, type ProxySettings, type RequestRecord } from "./handler.js"
import { sendError, type AuthPolicy } from "./http-util.js"
import { passThrough } from "./passthrough.js"
import { makeRecorder, type Recorder } from "./recorder.js"
import { protocolOf } from "./routes.js"
import { TurnMemo } from "./turn-judge.js"
import type { RetryEvent, UpstreamClient } from "./upstream.js"

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
  /** Shared backoff (the store's, for replicas); default: this process only. */
  readonly board?: BackoffBoard
  readonly auth?: AuthPolicy
  readonly onEvent?: (event: ProxyEvent) => void
  /**
   * The HTTP client guarded requests go upstream with; default: fetch on Bun (its own client, the
   * cheaper one per chunk), node:http on Node. Other paths always go through node:http.
   */
  readonly upstreamClient?: UpstreamClient
  /** Per route (its `proxy.routes` key): a whole config whose detector settings apply to that route. */
  readonly routeConfigs?: Readonly<Record<string, LoopguardConfig>>
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

const detectorsOf = (config: LoopguardConfig): DetectorSettings => ({ verdict: config, guard: config.repeat.enabled ? repeatGuardOptionsOf(config.repeat) : null })

/** The handler's settings from the config (and the routes' own configs). */
export const settingsOf = (config: LoopguardConfig, routeConfigs: Readonly<Record<string, LoopguardConfig>> = {}): ProxySettings => ({
  ...detectorsOf(config),
  routeDetectors: new Map(Object.entries(routeConfigs).map(([prefix, c]) => [prefix, detectorsOf(c)])),
  routing: { upstream: config.proxy.upstream, routes: config.proxy.routes, retry: config.retry, provider: config.provider, chunkTimeoutMs: config.stream.chunkTimeoutMs },
  sessionHeader: config.proxy.sessionHeader,
  textToolCalls: config.proxy.textToolCalls,
  toolCaps: config.toolCaps,
  maxRequestBytes: config.proxy.maxRequestBytes,
  maxResponseBytes: config.stream.maxResponseBytes,
  maxEventBytes: config.stream.maxEventBytes
})

export const HEALTH_PATH = "/loopguard/health"

const route = (options: ProxyOptions, recorder: Recorder | null, board: BackoffBoard) => {
  const settings = settingsOf(options.config, options.routeConfigs)
  const auth = options.auth ?? { token: null, upstreamKey: null }
  const emit = options.onEvent ?? (() => {})
  const deps = {
    settings,
    memo: new TurnMemo(),
    board,
    auth,
    ...(options.upstreamClient !== undefined ? { upstreamClient: options.upstreamClient } : {}),
    onRetry: (session: string, retry: RetryEvent) => emit({ type: "retry", session, retry }),
    onRecord: (record: RequestRecord, messages: ReadonlyArray<Message>) => {
      emit({ type: "request", record })
      recorder?.record(record.session, messages)
    }
  }
  return (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? "/").split("?")[0]!
    if (req.method === "GET" && path === HEALTH_PATH) {
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify({ status: "ok", upstream: options.config.proxy.upstream !== null, routes: Object.keys(options.config.proxy.routes).length }))
      return
    }
    const protocol = req.method === "POST" ? protocolOf(path) : null
    if (protocol === null) return passThrough(req, res, settings.routing, auth, settings.sessionHeader)
    handleGuarded(req, res, protocol, deps).catch((e: unknown) => sendError(res, protocol.name, 500, `loopguard proxy: internal error: ${e instanceof Error ? e.message : String(e)}`))
  }
}

/** Starts the proxy; resolves once it accepts connections. */
export const startProxy = async (options: ProxyOptions): Promise<RunningProxy> => {
  const board = options.board ?? memoryBackoff()
  const recorder = options.store === undefined ? null : makeRecorder(options.store, (message) => options.onEvent?.({ type: "store-error", message }), options.config.store.leaseMs)
  const { createServer } = await import("node:http")
  const server: Server = createServer(route(options, recorder, board))
  const sockets = new Set<Socket>()
  server.on("connection", (socket: Socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(options.port, options.host, () => {
      server.off("error", reject)
      resolve()
    })
  })
  const { port } = server.address() as AddressInfo
  const host = options.host
  let closed: Promise<void> | undefined
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    host,
    port,
    settled: () => recorder?.idle() ?? Promise.resolve(),
    close: () =>
      (closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve())
        for (const socket of sockets) socket.destroy()
      }).then(() => recorder?.idle()))
  }
}

/** The proxy could not listen (the address is taken, or not one this machine has). */
export class ProxyStartError extends Data.TaggedError("ProxyStartError")<{ readonly message: string }> {}

/** The proxy for the life of a scope: listening once acquired, closed (writes flushed) on release. */
export const makeProxyServer = (options: ProxyOptions): Effect.Effect<RunningProxy, ProxyStartError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: () => startProxy(options),
      catch: (e) => new ProxyStartError({ message: `could not listen on ${options.host}:${options.port}: ${e instanceof Error ? e.message : String(e)}` })
    }),
    (proxy) => Effect.promise(() => proxy.close())
  ).pipe(Effect.withSpan("ProxyServer.start"))

/** The running proxy as a service: its address for whoever needs it (tests, the CLI's ready line). */
export class ProxyServer extends Context.Service<ProxyServer, RunningProxy>()("loopguard/ProxyServer") {
  static readonly layer = (options: ProxyOptions): Layer.Layer<ProxyServer, ProxyStartError> => Layer.effect(ProxyServer, makeProxyServer(options))
}
