/**
 * `loopguard sessions list | show ID [--html OUT] | export ID [--out FILE] | import FILE [--as ID] [--format F]`, on the
 * store named by `--session-dir DIR` (SQLite) or `--store URL` (Postgres). `export` prints trace
 * v1 (audit reads it); `import` takes trace v1 back, refusing to write over an existing session.
 */
import type { SessionStoreShape } from "@loopguard/effect"
import { exportTrace, importTrace, redactUrl } from "@loopguard/effect/store"
import { Console, Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import type { Message } from "@loopguard/core/model"
import { mkdirSync, writeFileSync } from "node:fs"
import { readFile, writeFile } from "node:fs/promises"
import { basename, dirname, extname } from "node:path"
import { RunFailed, UsageError } from "../errors.js"
import { renderRunPage } from "../html/run-page.js"
import { sessionRunPage } from "../html/session-page.js"
import { formatFlag } from "../audit/format-flag.js"
import { loadCliConfig } from "../session.js"
import { jsonLine, terminalSafe } from "../render/terminal-safe.js"
import { formatList, formatSession } from "../sessions-format.js"
import type { LoopguardConfig } from "@loopguard/effect/config"
import { requestLogOf, type StoredRequest } from "@loopguard/proxy/store"
import { describeRecord } from "./proxy.js"
import { openCliStore, storeFailure, storeTargetOf, type StoreFlags } from "../store-target.js"

const storeFlags = {
  sessionDir: Flag.String("session-dir").pipe(Flag.optional, Flag.withDescription("the SQLite store in this folder (<dir>/sessions.db)")),
  store: Flag.String("store").pipe(Flag.optional, Flag.withDescription("a Postgres store (postgres://…)")),
  config: Flag.String("config").pipe(Flag.optional, Flag.withDescription("config file (store.leaseMs, store.busyTimeoutMs, store.timeoutMs)"))
}

/** The store a command was pointed at: its target (with any password, for opening only) and the config. */
interface OpenedStore {
  readonly target: string
  readonly config: LoopguardConfig
}

/** Opens the store the flags name for the length of `use`; a store is required here. */
const withStore = <A, E>(flags: StoreFlags & { readonly config: Option.Option<string> }, use: (store: SessionStoreShape, shown: string, opened: OpenedStore) => Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    const target = yield* storeTargetOf(flags)
    if (target === null) return yield* new UsageError({ message: "name the store: --session-dir DIR (SQLite) or --store postgres://…" })
    const config = yield* loadCliConfig(Option.isSome(flags.config) ? { configPath: flags.config.value } : {})
    const store = yield* openCliStore(target, config)
    // What is printed of the target: never a password it holds.
    return yield* use(store, redactUrl(target), { target, config })
  }).pipe(Effect.scoped)

/** Why `id` cannot name a session (empty, too long, spaces or control characters), or null. */
export const sessionIdProblem = (id: string): string | null => {
  if (id === "") return "is empty"
  if (id.length > 128) return `is ${id.length} characters long (at most 128)`
  if (/[\s\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/.test(id)) return "holds spaces or control characters"
  return null
}

const existing = (store: SessionStoreShape, id: string, target: string) =>
  Effect.gen(function* () {
    const messages = yield* store.messages(id).pipe(Effect.mapError(storeFailure))
    if (messages.length === 0) return yield* new UsageError({ message: `no session ${id} in ${store.location(id).replace(/ \(session .*\)$/, "") || target}` })
    return messages
  })

const listCommand = Command.make("list", { ...storeFlags, json: Flag.Boolean("json").pipe(Flag.withDefault(false), Flag.withDescription("one JSON object per session")) }, (flags) =>
  withStore(flags, (store, target) =>
    Effect.gen(function* () {
      const sessions = yield* store.list().pipe(Effect.mapError(storeFailure))
      if (flags.json) for (const s of sessions) yield* Console.log(jsonLine(s))
      else yield* Console.log(formatList(sessions, target))
    })
  )
).pipe(Command.withDescription("List the stored sessions, most recently written first"))

/** `sessions show ID --html OUT`: the session as a page, with what an audit of it finds. */
const writeSessionPage = (id: string, messages: ReadonlyArray<Message>, out: string, configPath: Option.Option<string>) =>
  Effect.gen(function* () {
    const config = yield* loadCliConfig(Option.isSome(configPath) ? { configPath: configPath.value } : {})
    const page = yield* sessionRunPage(id, messages, config).pipe(Effect.mapError((message) => new RunFailed({ message, exitCode: 1 })))
    yield* Effect.try({
      try: () => {
        mkdirSync(dirname(out), { recursive: true })
        writeFileSync(out, renderRunPage(page))
      },
      catch: (e) => new UsageError({ message: `--html ${out}: cannot write: ${(e as Error).message}` })
    })
    yield* Console.log(`wrote ${out}: ${page.steps.length} steps, ${page.incidents.length} incidents`)
  })

const showCommand = Command.make(
  "show",
  {
    ...storeFlags,
    id: Argument.String("id").pipe(Argument.withDescription("session id")),
    html: Flag.String("html").pipe(Flag.optional, Flag.withDescription("write the session as a self-contained HTML page to OUT, with what an audit of it finds"))
  },
  (flags) =>
    withStore(flags, (store, shown, opened) =>
      Effect.flatMap(existing(store, flags.id, shown), (messages) =>
        Option.isSome(flags.html)
          ? writeSessionPage(flags.id, messages, flags.html.value, flags.config)
          : Effect.flatMap(requestLogOf(opened.target, opened.config, flags.id).pipe(Effect.mapError(storeFailure)), (requests) =>
              Console.log([formatSession(flags.id, messages), ...formatRequests(requests)].join("\n"))
            )
      )
    )
).pipe(Command.withDescription("Show one session's messages, and what loopguard proxy did with each of its requests (--html OUT: as a page)"))

/** The proxy's request records of a proxied session, a line each; nothing for a session the proxy never served. */
const formatRequests = (requests: ReadonlyArray<StoredRequest>): ReadonlyArray<string> =>
  requests.length === 0 ? [] : [`proxy requests: ${requests.length}`, ...requests.map((r) => `  ${new Date(r.at).toISOString()} ${terminalSafe(describeRecord(r.record))}`)]

const exportCommand = Command.make(
  "export",
  { ...storeFlags, id: Argument.String("id").pipe(Argument.withDescription("session id")), out: Flag.String("out").pipe(Flag.optional, Flag.withDescription("write to FILE instead of stdout")) },
  (flags) =>
    withStore(flags, (store, target) =>
      Effect.gen(function* () {
        const text = exportTrace(flags.id, yield* existing(store, flags.id, target))
        if (Option.isNone(flags.out)) return yield* Effect.sync(() => void process.stdout.write(text))
        const file = flags.out.value
        yield* Effect.tryPromise({ try: () => writeFile(file, text), catch: (e) => new UsageError({ message: `--out ${file}: ${(e as Error).message}` }) })
      })
    )
).pipe(Command.withDescription("Print a session as trace v1 JSON Lines (loopguard audit reads it)"))

const importCommand = Command.make(
  "import",
  { ...storeFlags, file: Argument.String("file").pipe(Argument.withDescription("trace v1 file, or an agent's own log (docs/audit.md)")), format: formatFlag, as: Flag.String("as").pipe(Flag.optional, Flag.withDescription("session id to import under (default: the trace's session id, else the file name)")) },
  (flags) =>
    withStore(flags, (store) =>
      Effect.gen(function* () {
        const text = yield* Effect.tryPromise({ try: () => readFile(flags.file, "utf8"), catch: (e) => new UsageError({ message: `${flags.file}: cannot read: ${(e as Error).message}` }) })
        const parsed = importTrace(text, flags.file, Option.getOrUndefined(flags.format))
        if (!parsed.ok) return yield* new UsageError({ message: parsed.problems.join("\n") })
        for (const n of parsed.notes ?? []) yield* Console.error(`note: ${n}`)
        if (parsed.messages.length === 0) return yield* new UsageError({ message: `${flags.file}: no user or assistant lines to import` })
        const id = Option.isSome(flags.as) ? flags.as.value : (parsed.sessionId ?? basename(flags.file, extname(flags.file)))
        const bad = sessionIdProblem(id)
        if (bad !== null) return yield* new UsageError({ message: `${Option.isSome(flags.as) ? "--as" : `${flags.file}: the session id`} ${JSON.stringify(id)}: ${bad}; give one with --as ID` })
        const before = yield* store.messages(id).pipe(Effect.mapError(storeFailure))
        if (before.length > 0) return yield* new UsageError({ message: `session ${id} already exists (${before.length} messages); import it under another id with --as ID` })
        // All or nothing: a failure half-way (a repeated id, a full disk) leaves no half session.
        yield* (store.importSession !== undefined
          ? store.importSession(id, parsed.messages)
          : Effect.forEach(parsed.messages, (m) => (m.role === "user" ? store.append(id, m) : store.putAssistant(id, m)), { discard: true })
        ).pipe(Effect.mapError(storeFailure))
        yield* Console.log(`imported ${parsed.messages.length} messages as session ${terminalSafe(id)}`)
      })
    )
).pipe(Command.withDescription("Store a trace v1 file (or an agent's own log) as a session"))

export const sessionsCommand = Command.make("sessions").pipe(
  Command.withDescription("List, show, export and import stored sessions (--session-dir DIR or --store URL)"),
  Command.withSubcommands([listCommand, showCommand, exportCommand, importCommand])
)
