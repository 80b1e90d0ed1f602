/**
 * `loopguard sessions list | show ID [--html OUT] | export ID [--out FILE] | import FILE [--as ID] [--format F]
 * | delete ID... | prune --older-than AGE [--dry-run]`, on the store named by `--session-dir DIR` (SQLite) or
 * `--store URL` (Postgres). `export` prints trace v1 (audit reads it); `import` takes trace v1 back,
 * refusing to write over an existing session; `delete` and `prune` delete whole sessions for good.
 */
import type { SessionStoreShape, SessionSummary } from "@loopguard/effect"
import { exportTrace, importTrace, isPostgresUrl, makeFolder, redactUrl, sqliteFile } from "@loopguard/effect/store"
import { isSqliteFile, openCodeDbExport, openCodeDbSessions, storedSessionName } from "@loopguard/effect/audit"
import { Console, Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { textFlag } from "../text-flag.js"
import type { Message } from "@loopguard/core/model"
import { redactDeep } from "@loopguard/core/try-best"
import { credentialRedactor } from "../render/env-secrets.js"
import { isDevice, isDir } from "../audit/inputs.js"
import { sessionPageName, wantsFolder } from "../html/page-files.js"
import { existsSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { basename, dirname, extname, join } from "node:path"
import { RunFailed, UsageError } from "../errors.js"
import { inputAt, writeOutputFile } from "../output-file.js"
import { quotedId, sessionIdProblem } from "../session-id.js"

export { quotedId, sessionIdProblem }
import { renderRunPage } from "../html/run-page.js"
import { sessionRunPage } from "../html/session-page.js"
import { formatFlag } from "../audit/format-flag.js"
import { loadCliConfig } from "../session.js"
import { jsonLine, terminalSafe, terminalSafeField } from "../render/terminal-safe.js"
import { formatList, formatSession } from "../sessions-format.js"
import type { LoopguardConfig } from "@loopguard/effect/config"
import { removeRequestLogs, requestLogOf, type StoredRequest } from "@loopguard/proxy/store"
import { describeRecord } from "./proxy.js"
import { openCliStore, storeFailure, storeTargetOf, type StoreFlags } from "../store-target.js"

const storeFlags = {
  sessionDir: textFlag("session-dir").pipe(Flag.optional, Flag.withDescription("the SQLite store in this folder (<dir>/sessions.db)")),
  store: textFlag("store").pipe(Flag.optional, Flag.withDescription("a Postgres store (postgres://…)")),
  config: textFlag("config").pipe(Flag.optional, Flag.withDescription("config file (store.leaseMs, store.busyTimeoutMs, store.timeoutMs)"))
}

/** The store a command was pointed at: its target (with any password, for opening only) and the config. */
interface OpenedStore {
  readonly target: string
  readonly config: LoopguardConfig
}

/**
 * The store the flags name, open while `use` runs. Only `creates` (import) makes a session folder
 * that is not there: reading or deleting in a mistyped one is an error, not an empty store.
 */
const withStore = <A, E>(
  flags: StoreFlags & { readonly config: Option.Option<string> },
  use: (store: SessionStoreShape, shown: string, opened: OpenedStore) => Effect.Effect<A, E>,
  creates = false
) =>
  Effect.gen(function* () {
    const target = yield* storeTargetOf(flags)
    if (target === null) return yield* new UsageError({ message: "name the store: --session-dir DIR (SQLite) or --store postgres://…" })
    if (!creates && !isPostgresUrl(target) && !existsSync(target)) return yield* new UsageError({ message: `--session-dir ${target}: no such folder (no session was stored there)` })
    const config = yield* loadCliConfig(Option.isSome(flags.config) ? { configPath: flags.config.value } : {})
    const store = yield* openCliStore(target, config)
    // What is printed of the target: never a password it holds.
    return yield* use(store, redactUrl(target), { target, config })
  }).pipe(Effect.scoped)

/** The problems shown of a file that cannot be imported: the first ten (a binary file has one per line), then how many more. */
export const firstProblems = (problems: ReadonlyArray<string>, shown = 10): string =>
  [...problems.slice(0, shown), ...(problems.length > shown ? [`… and ${problems.length - shown} more`] : [])].join("\n")

/**
 * What import stores, and what show and export print of a stored session, holds no credential in a
 * well-known format, a URL password or a Bearer/api-key value, nor the value of a variable of this
 * environment named like a credential: the store redacts them as it writes, and a session written by
 * an older loopguard or by another machine's proxy is redacted here on the way out.
 */
let storedRedactorMade: ((text: string) => string) | undefined
const storedRedactor = (text: string): string => (storedRedactorMade ??= credentialRedactor(process.env))(text)

const existing = (store: SessionStoreShape, id: string, target: string) =>
  Effect.gen(function* () {
    const messages = yield* store.messages(id).pipe(Effect.mapError(storeFailure))
    // The id is the user's text: a newline in it must not start a line of its own on stderr.
    if (messages.length === 0) return yield* new UsageError({ message: `no session ${terminalSafeField(id)} in ${store.location(id).replace(/ \(session .*\)$/s, "") || target}` })
    return messages.map((m) => redactDeep(m, storedRedactor))
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

/** The store's own files (SQLite and its journal): a page or export written over one would destroy the store. */
const storeFiles = (target: string): ReadonlyArray<string> => {
  if (isPostgresUrl(target)) return []
  const db = sqliteFile(target)
  return [db, `${db}-wal`, `${db}-shm`]
}

const refuseStoreFile = (flag: string, out: string, target: string) => {
  const file = inputAt(out, storeFiles(target))
  return file === undefined ? Effect.void : Effect.fail(new UsageError({ message: `${flag} ${out}: would overwrite the session store's file ${file} (write it elsewhere)` }))
}

/**
 * `sessions show ID --html OUT`: the session as a page, with what an audit of it finds. OUT an
 * existing folder, or ending in `/`, is a folder (as for `audit --html`): the page is
 * OUT/<session id>.html.
 */
const writeSessionPage = (id: string, messages: ReadonlyArray<Message>, out: string, opened: OpenedStore, configPath: Option.Option<string>) =>
  Effect.gen(function* () {
    const folder = wantsFolder(out, 1, false, isDir(out))
    const file = folder ? join(out, sessionPageName(id)) : out
    yield* refuseStoreFile("--html", file, opened.target)
    const config = yield* loadCliConfig(Option.isSome(configPath) ? { configPath: configPath.value } : {})
    const page = yield* sessionRunPage(id, messages, config).pipe(Effect.mapError((message) => new RunFailed({ message, exitCode: 1 })))
    yield* Effect.try({
      try: () => {
        makeFolder(folder ? out : dirname(out))
        writeOutputFile(file, renderRunPage(page))
      },
      catch: (e) => new UsageError({ message: `--html ${file}: cannot write: ${(e as Error).message}` })
    })
    yield* Console.log(`wrote ${file}: ${page.steps.length} steps, ${page.incidents.length} incidents`)
  })

const showCommand = Command.make(
  "show",
  {
    ...storeFlags,
    id: Argument.String("id").pipe(Argument.withDescription("session id")),
    html: textFlag("html").pipe(Flag.optional, Flag.withDescription("write the session as a self-contained HTML page to OUT, with what an audit of it finds"))
  },
  (flags) =>
    withStore(flags, (store, shown, opened) =>
      Effect.flatMap(existing(store, flags.id, shown), (messages) =>
        Option.isSome(flags.html)
          ? writeSessionPage(flags.id, messages, flags.html.value, opened, flags.config)
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
  { ...storeFlags, id: Argument.String("id").pipe(Argument.withDescription("session id")), out: textFlag("out").pipe(Flag.optional, Flag.withDescription("write to FILE instead of stdout")) },
  (flags) =>
    withStore(flags, (store, target, opened) =>
      Effect.gen(function* () {
        const text = exportTrace(flags.id, yield* existing(store, flags.id, target))
        if (Option.isNone(flags.out)) return yield* Effect.sync(() => void process.stdout.write(text))
        const file = flags.out.value
        yield* refuseStoreFile("--out", file, opened.target)
        yield* Effect.try({ try: () => writeOutputFile(file, text), catch: (e) => new UsageError({ message: `--out ${file}: ${(e as Error).message}` }) })
      })
    )
).pipe(Command.withDescription("Print a session as trace v1 JSON Lines (loopguard audit reads it)"))

/**
 * A session of OpenCode's (or Kilo's) database as its export document, when FILE names one:
 * `DB#SESSION`, or the database itself when it holds one session (audit names its runs the same
 * way); null when FILE is no database, so it is read as a log.
 */
const storedSessionExport = (file: string): Effect.Effect<{ readonly text: string } | null, UsageError> =>
  Effect.gen(function* () {
    // The database is the shortest part before a `#` that is one: a session id may hold `#` too.
    const cut = isSqliteFile(file) ? -1 : [...file.matchAll(/#/g)].map((m) => m.index).find((at) => at > 0 && isSqliteFile(file.slice(0, at)))
    const [db, named] = cut === undefined || cut < 0 ? [file, null] : [file.slice(0, cut), file.slice(cut + 1)]
    if (!isSqliteFile(db)) return null
    const asUsage = (message: string) => new UsageError({ message })
    let id = named
    if (id === null) {
      const sessions = yield* openCodeDbSessions(db).pipe(Effect.mapError(asUsage))
      if (sessions.length !== 1) {
        const which = sessions.slice(0, 5).map((x) => storedSessionName(db, x.id)).join(", ")
        return yield* asUsage(`${db}: ${sessions.length === 0 ? "OpenCode's database holds no session" : `OpenCode's database holds ${sessions.length} sessions: name one as DB#SESSION (${which}${sessions.length > 5 ? ", …" : ""})`}`)
      }
      id = sessions[0]!.id
    }
    return { text: yield* openCodeDbExport(db, id).pipe(Effect.mapError(asUsage)) }
  })

const importCommand = Command.make(
  "import",
  { ...storeFlags, file: Argument.String("file").pipe(Argument.withDescription("trace v1 file, or an agent's own log (docs/audit.md); a session of OpenCode's or Kilo's database as DB#SESSION")), format: formatFlag, as: textFlag("as").pipe(Flag.optional, Flag.withDescription("session id to import under (default: the trace's session id, else the file name)")) },
  (flags) =>
    withStore(
      flags,
      (store) =>
        Effect.gen(function* () {
          if (isDevice(flags.file)) return yield* new UsageError({ message: `${flags.file}: a device, not a log file` })
          const stored = yield* storedSessionExport(flags.file)
          const text = stored?.text ?? (yield* Effect.tryPromise({ try: () => readFile(flags.file, "utf8"), catch: (e) => new UsageError({ message: `${flags.file}: cannot read: ${(e as Error).message}` }) }))
          const parsed = importTrace(text, flags.file, stored !== null ? "opencode" : Option.getOrUndefined(flags.format))
          if (!parsed.ok) return yield* new UsageError({ message: firstProblems(parsed.problems) })
          for (const n of parsed.notes ?? []) yield* Console.error(`note: ${n}`)
          if (parsed.messages.length === 0) return yield* new UsageError({ message: `${flags.file}: no user or assistant lines to import` })
          const id = Option.isSome(flags.as) ? flags.as.value : (parsed.sessionId ?? basename(flags.file, extname(flags.file)))
          const bad = sessionIdProblem(id)
          if (bad !== null) return yield* new UsageError({ message: `${Option.isSome(flags.as) ? "--as" : `${flags.file}: the session id`} ${quotedId(id)}: ${bad}; give one with --as ID` })
          const before = yield* store.messages(id).pipe(Effect.mapError(storeFailure))
          if (before.length > 0) return yield* new UsageError({ message: `session ${id} already exists (${before.length} messages); import it under another id with --as ID` })
          const messages = parsed.messages.map((m) => redactDeep(m, storedRedactor))
          // All or nothing: a failure half-way (a repeated id, a full disk) leaves no half session.
          yield* (store.importSession !== undefined
            ? store.importSession(id, messages)
            : Effect.forEach(messages, (m) => (m.role === "user" ? store.append(id, m) : store.putAssistant(id, m)), { discard: true })
          ).pipe(Effect.mapError(storeFailure))
          yield* Console.log(`imported ${parsed.messages.length} messages as session ${terminalSafe(id)}`)
        }),
      true
    )
).pipe(Command.withDescription("Store a trace v1 file (or an agent's own log) as a session"))

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const

/** An age as `--older-than` takes it (a whole number and a unit: m, h, d or w), in milliseconds; null when it is not one. */
const ageMs = (text: string): number | null => {
  const m = /^(\d{1,7})(m|h|d|w)$/.exec(text.trim())
  return m === null ? null : Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS]
}

/**
 * Deletes `sessions` whole (their messages, then the proxy's records of their requests) and says
 * what happened, a line each; a session a live writer holds is kept (exit 1).
 */
const deleteSessions = (store: SessionStoreShape, opened: OpenedStore, sessions: ReadonlyArray<SessionSummary>) =>
  Effect.gen(function* () {
    if (store.remove === undefined) return yield* new UsageError({ message: "this store cannot delete sessions" })
    const done = yield* store.remove(sessions.map((s) => s.id)).pipe(Effect.mapError(storeFailure))
    yield* removeRequestLogs(opened.target, opened.config, done.removed).pipe(Effect.mapError(storeFailure))
    const byId = new Map(sessions.map((s) => [s.id, s]))
    for (const id of done.removed) yield* Console.log(`deleted session ${terminalSafe(id)} (${byId.get(id)?.messages ?? 0} messages)`)
    for (const id of done.busy) yield* Console.error(`session ${terminalSafe(id)} is being written by ${terminalSafe(byId.get(id)?.writer ?? "another process")}: not deleted`)
    if (done.busy.length > 0) return yield* new RunFailed({ message: "", exitCode: 1 })
  })

const deleteCommand = Command.make(
  "delete",
  { ...storeFlags, ids: Argument.String("id").pipe(Argument.variadic({ min: 1 }), Argument.withDescription("session ids")) },
  (flags) =>
    withStore(flags, (store, shown, opened) =>
      Effect.gen(function* () {
        const known = new Map((yield* store.list().pipe(Effect.mapError(storeFailure))).map((s) => [s.id, s]))
        const missing = flags.ids.filter((id) => !known.has(id))
        // The sessions that exist are deleted even when another id names none: nothing is left half done.
        yield* deleteSessions(store, opened, [...new Set(flags.ids)].flatMap((id) => known.get(id) ?? []))
        if (missing.length > 0) return yield* new UsageError({ message: `no session ${missing.map(terminalSafeField).join(", ")} in ${shown}` })
      })
    )
).pipe(Command.withDescription("Delete stored sessions for good, their messages and the proxy's records of their requests"))

const pruneCommand = Command.make(
  "prune",
  {
    ...storeFlags,
    olderThan: textFlag("older-than").pipe(Flag.withDescription("delete the sessions last written longer ago than AGE: a whole number and a unit, m, h, d or w (30d, 12h)")),
    dryRun: Flag.Boolean("dry-run").pipe(Flag.withDefault(false), Flag.withDescription("list what would be deleted, and delete nothing"))
  },
  (flags) =>
    Effect.gen(function* () {
      const age = ageMs(flags.olderThan)
      if (age === null) return yield* new UsageError({ message: `--older-than ${JSON.stringify(flags.olderThan)}: give a whole number and a unit, m, h, d or w (for example 30d, 12h, 90m, 2w)` })
      return yield* withStore(flags, (store, shown, opened) =>
        Effect.gen(function* () {
          const before = Date.now() - age
          const old = (yield* store.list().pipe(Effect.mapError(storeFailure))).filter((s) => s.updatedAt < before)
          if (old.length === 0) return yield* Console.log(`no session in ${shown} was last written before ${new Date(before).toISOString()}`)
          if (!flags.dryRun) return yield* deleteSessions(store, opened, old)
          for (const s of old) yield* Console.log(`would delete session ${terminalSafe(s.id)} (${s.messages} messages, last written ${new Date(s.updatedAt).toISOString()})`)
        })
      )
    })
).pipe(Command.withDescription("Delete the sessions last written longer ago than --older-than (--dry-run: only list them)"))

export const sessionsCommand = Command.make("sessions").pipe(
  Command.withDescription("List, show, export, import and delete stored sessions (--session-dir DIR or --store URL)"),
  Command.withSubcommands([listCommand, showCommand, exportCommand, importCommand, deleteCommand, pruneCommand])
)
