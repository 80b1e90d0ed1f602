/**
 * `loopguard proxy --upstream URL [--listen HOST:PORT] [--config FILE] [--session-dir DIR | --store URL] [--json]`:
 * an OpenAI-, Anthropic- and Gemini-compatible proxy in front of `URL`; agents are pointed at
 * `http://HOST:PORT/v1`. One stderr line says when it listens; then one line per request
 * (`--json`: one JSON object per request on stdout). It runs until SIGINT/SIGTERM.
 */
import type { ProxyEvent, RequestRecord } from "@loopguard/proxy"
import { makeProxyServer, proxyUrl, upstreamProblem, upstreamShown } from "@loopguard/proxy"
import { secretValues } from "../render/env-secrets.js"
import type { LoopguardConfig } from "@loopguard/effect/config"
import { Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import { textFlag } from "../text-flag.js"
import { batchedLines } from "../batched-lines.js"
import { UsageError } from "../errors.js"
import { unsetVariableShown } from "../env-name.js"
import { terminalSafeField } from "../render/terminal-safe.js"
import { loadCliConfig } from "../session.js"
import { ensureWritableDir } from "../session-dir.js"
import { openCliStore, storeTargetOf } from "../store-target.js"
import { availableParallelism } from "node:os"
import { resolve } from "node:path"
import { sharedState } from "@loopguard/proxy/store"
import { announceWorker, reusePortProblem, superviseWorkers, workerBoard, workerCount, workerRole, workersFlagValue } from "./proxy-workers.js"

/** The fewest characters of a proxy token: one a client (or a web page) could guess opens the upstream key to it. */
export const MIN_TOKEN_CHARS = 16

/** Why a proxy token would not keep anyone out, or null: blank, with whitespace in it, or short enough to guess. */
export const weakToken = (token: string): string | null => {
  if (/\s/.test(token)) return "has whitespace in it (a blank token, or one a client's header would trim): use one without"
  if (token.length < MIN_TOKEN_CHARS) return `is shorter than ${MIN_TOKEN_CHARS} characters (${token.length}): use a longer, random one (for example \`openssl rand -hex 24\`)`
  return null
}

/** How long a log line may wait to be written with the next ones (batched-lines.ts). */
const LOG_BATCH_MS = 50

/** `HOST:PORT` (IPv6 as `[::1]:PORT`) as its two parts, or null when it is not one. */
export const parseListen = (text: string): { readonly host: string; readonly port: number } | null => {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\s]+)):(\d{1,5})$/.exec(text.trim())
  if (m === null) return null
  const port = Number(m[3])
  return port <= 65535 ? { host: m[1] ?? m[2]!, port } : null
}

/**
 * The upstream keys the proxy holds (`proxy.upstreamKeyEnv`, each route's `keyEnv`), read from the
 * environment, and the setting that named the first (for the token error); null when it holds none.
 * A key variable named but not set would leave the proxy open, without the token it was meant to ask for.
 */
const heldKeysOf = (config: LoopguardConfig) =>
  Effect.gen(function* () {
    const read = (variable: string, setting: string) => {
      const value = process.env[variable]
      return value === undefined || value === ""
        ? Effect.fail(new UsageError({ message: `${setting} names ${unsetVariableShown(variable, setting)}, which is not set (or empty): set it to the upstream key, or unset ${setting}` }))
        : Effect.succeed(value)
    }
    const settings: Array<string> = []
    const upstreamKey = config.proxy.upstreamKeyEnv === null ? null : yield* read(config.proxy.upstreamKeyEnv, "proxy.upstreamKeyEnv")
    if (upstreamKey !== null) settings.push("proxy.upstreamKeyEnv")
    const routeKeys = new Map<string, string>()
    for (const [prefix, route] of Object.entries(config.proxy.routes)) {
      if (route.keyEnv === undefined) continue
      routeKeys.set(prefix, yield* read(route.keyEnv, `proxy.routes.${prefix}.keyEnv`))
      settings.push(`proxy.routes.${prefix}.keyEnv`)
    }
    return settings.length === 0 ? null : { upstreamKey, routeKeys, setting: settings[0]! }
  })

const checkUpstream = (url: string, flag: string): Effect.Effect<string, UsageError> => {
  const problem = upstreamProblem(url)
  return problem === null ? Effect.succeed(url) : Effect.fail(new UsageError({ message: `${flag}: ${problem}` }))
}

/**
 * One line for people: what happened to a request. Never a header, never a key. Every word a client
 * or an upstream chose (model name, session id, an upstream's error words) is shown escaped
 * (terminalSafeField): a newline in a model name cannot forge a log line, an escape cannot act.
 */
export const describeEvent = (e: ProxyEvent): string => {
  const f = terminalSafeField
  if (e.type === "retry") return `${f(e.session)}: upstream ${e.retry.status !== undefined ? `HTTP ${e.retry.status}` : "failure"} (${f(e.retry.reason)}); retry ${e.retry.attempt} in ${e.retry.delayMs} ms`
  if (e.type === "store-error") return `session store: ${f(e.message)}`
  return `${f(e.record.session)} ${describeRecord(e.record)}`
}

/** What the proxy did with one request, after its session id: the log line's words, `sessions show`'s too (fields escaped as above). */
export const describeRecord = (r: RequestRecord): string => {
  const f = terminalSafeField
  const detectors = r.incidents.map((i) => `${f(i.detector)}:${f(i.action)}`).join(", ")
  return `${f(r.protocol)} ${f(r.model ?? "-")} ${f(r.action)}${detectors !== "" ? ` [${detectors}]` : ""} → ${f(r.outcome)} ${r.status}${r.detail !== undefined ? ` (${f(r.detail)})` : ""}${r.retries > 0 ? `, ${r.retries} retries` : ""}, ${r.ms} ms`
}

export const proxyCommand = Command.make(
  "proxy",
  {
    upstream: textFlag("upstream").pipe(Flag.optional, Flag.withDescription("upstream base URL as an agent would be given it, e.g. http://127.0.0.1:8080/v1 (default: proxy.upstream)")),
    listen: textFlag("listen").pipe(Flag.optional, Flag.withDescription("HOST:PORT to listen on (default: proxy.listen = 127.0.0.1:4477)")),
    config: textFlag("config").pipe(Flag.optional, Flag.withDescription("config file (JSON/JSONC)")),
    sessionDir: textFlag("session-dir").pipe(Flag.optional, Flag.withDescription("keep proxied sessions in SQLite in this folder (<dir>/sessions.db)")),
    store: textFlag("store").pipe(Flag.optional, Flag.withDescription("keep proxied sessions in Postgres (postgres://…); replicas share sessions and backoff")),
    json: Flag.Boolean("json").pipe(Flag.withDefault(false), Flag.withDescription("one JSON object per request on stdout instead of log lines")),
    workers: textFlag("workers").pipe(Flag.optional, Flag.withDescription("processes serving the address, spread over the cores: a number, or auto for one per core (default proxy.workers = 1; Linux)"))
  },
  (flags) =>
    Effect.gen(function* () {
      const overrides = [
        ...(Option.isSome(flags.upstream) ? [{ path: "proxy.upstream", value: yield* checkUpstream(flags.upstream.value, "--upstream"), flag: "--upstream" }] : []),
        ...(Option.isSome(flags.listen) ? [{ path: "proxy.listen", value: flags.listen.value, flag: "--listen" }] : []),
        ...(Option.isSome(flags.workers) ? [{ path: "proxy.workers", value: workersFlagValue(flags.workers.value), flag: "--workers" }] : [])
      ]
      const config = yield* loadCliConfig({ ...(Option.isSome(flags.config) ? { configPath: flags.config.value } : {}), overrides })
      const listen = parseListen(config.proxy.listen)
      if (listen === null) return yield* new UsageError({ message: `${Option.isSome(flags.listen) ? "--listen" : "proxy.listen"}: expected HOST:PORT, got ${config.proxy.listen}` })
      if (config.proxy.upstream === null && Object.keys(config.proxy.routes).length === 0) {
        return yield* new UsageError({ message: "--upstream is required (or proxy.upstream / proxy.routes in the config)" })
      }
      if (config.proxy.upstream !== null) yield* checkUpstream(config.proxy.upstream, "proxy.upstream")
      const routeConfigs: Record<string, LoopguardConfig> = {}
      for (const [prefix, r] of Object.entries(config.proxy.routes)) {
        yield* checkUpstream(r.upstream, `proxy.routes.${prefix}.upstream`)
        // A route's own config file: its detector settings apply to that route (validated like any config).
        if (r.config !== undefined) {
          routeConfigs[prefix] = yield* loadCliConfig({ configPath: r.config }).pipe(
            Effect.mapError((e) => new UsageError({ message: `proxy.routes.${prefix}.config: ${e.message}` }))
          )
        }
      }
      const keys = yield* heldKeysOf(config)
      const token = process.env[config.proxy.tokenEnv]
      if (keys !== null && (token === undefined || token === "")) {
        return yield* new UsageError({ message: `${keys.setting}: the proxy holds an upstream key, so clients must present a token: ${unsetVariableShown(config.proxy.tokenEnv, "proxy.tokenEnv")} is not set (or empty): set it` })
      }
      const weak = keys !== null && token !== undefined ? weakToken(token) : null
      if (weak !== null) return yield* new UsageError({ message: `${config.proxy.tokenEnv}: the token clients present ${weak}` })
      const target = yield* storeTargetOf(flags)
      const upstreams = [config.proxy.upstream, ...Object.values(config.proxy.routes).map((r) => r.upstream)].filter((u): u is string => u !== null)
      const workers = workerCount(config.proxy.workers, availableParallelism(), reusePortProblem())
      const listening = (url: string) =>
        process.stderr.write(`loopguard proxy: listening on ${url} (agents: base URL ${url}/v1; Gemini CLI: ${url}) → ${upstreams.map(upstreamShown).join(", ")}${workers > 1 ? ` (${workers} workers)` : ""}\n`)
      const role = workerRole()
      if (workers > 1 && role === null) {
        const problem = reusePortProblem()
        if (problem !== null) return yield* new UsageError({ message: `${Option.isSome(flags.workers) ? "--workers" : "proxy.workers"}: ${problem}` })
        // Each worker opens the store and serves; this process only supervises them.
        return yield* superviseWorkers(workers, listen.port, (port) => listening(proxyUrl(listen.host, port)))
      }
      if (Option.isSome(flags.sessionDir)) yield* ensureWritableDir(resolve(flags.sessionDir.value), "--session-dir")
      // A line a request, written in batches (batched-lines.ts); what is kept is written before the process ends
      // (this finalizer runs after the store's and the server's, which may still have lines to say).
      const lines = batchedLines((text) => (flags.json ? process.stdout : process.stderr).write(text), LOG_BATCH_MS)
      process.once("exit", lines.flush)
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          lines.flush()
          process.off("exit", lines.flush)
        })
      )
      const store = target === null ? undefined : yield* openCliStore(target, config)
      const shared = target === null ? undefined : yield* sharedState(target, config).pipe(Effect.mapError((e) => new UsageError({ message: e.message })))
      const show = flags.json
        ? (e: ProxyEvent) => lines.write(`${JSON.stringify(e)}\n`)
        : (e: ProxyEvent) => lines.write(`loopguard proxy${role !== null ? ` (worker ${role.index})` : ""}: ${describeEvent(e)}\n`)
      // Each request's record (action, incidents, outcome) also goes to the store, beside the session.
      const print = (e: ProxyEvent) => {
        show(e)
        if (e.type === "request" && shared !== undefined) void shared.logRequest(e.record).then((failed) => failed !== null && show({ type: "store-error", message: failed }))
      }
      const proxy = yield* makeProxyServer({
        config,
        host: listen.host,
        port: role?.port ?? listen.port,
        reusePort: role !== null,
        ...(store !== undefined ? { store, secrets: secretValues(process.env, []) } : {}),
        ...(shared !== undefined ? { board: shared.board } : role !== null ? { board: workerBoard() } : {}),
        ...(keys !== null ? { auth: { token: token ?? null, upstreamKey: keys.upstreamKey, routeKeys: keys.routeKeys } } : {}),
        onEvent: print,
        routeConfigs
      }).pipe(Effect.mapError((e) => new UsageError({ message: e.message })))
      if (role !== null) announceWorker(proxy.port)
      else listening(proxy.url)
      // Serve until a signal interrupts the command; the scope then closes the server.
      return yield* Effect.never
    }).pipe(Effect.scoped)
).pipe(
  Command.withDescription(
    "Serve an OpenAI-, Anthropic- and Gemini-compatible proxy (chat/completions, responses, messages, generateContent) that puts loopguard in front of any agent: point the agent's base URL at http://HOST:PORT/v1"
  )
)
