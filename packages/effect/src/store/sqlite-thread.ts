/**
 * One SQLite connection on a thread of its own (`node:worker_threads`, on Bun and on Node): every
 * statement, every commit and its sync to disk, and every wait on another process's lock run there,
 * never on the caller's event loop. A server that stores as it serves (the proxy, writing each
 * request's session and log) keeps relaying other streams meanwhile; a CLI run pays one message
 * per statement.
 *
 * The thread runs `threadMain` from its source text (no file to find next to a bundle), so
 * `threadMain` uses nothing from this module: it gets `require` as its argument.
 */
import { Worker } from "node:worker_threads"

export interface ThreadOpenOptions {
  readonly filename: string
  readonly busyTimeoutMs: number
  readonly readonly: boolean
}

/** What a failed call says: the SQLite error's own fields, for the caller to classify. */
export interface ThreadError {
  readonly message: string
  readonly name?: string
  readonly code?: string | number
  readonly errno?: number
  readonly errcode?: number
  readonly errstr?: string
}

type Request =
  | { readonly id: number; readonly op: "open"; readonly options: ThreadOpenOptions }
  | { readonly id: number; readonly op: "run"; readonly sql: string; readonly params: ReadonlyArray<unknown>; readonly prepare: boolean }
  | { readonly id: number; readonly op: "close" }

/** A request before the thread's caller numbers it. */
type Call = Request extends infer R ? (R extends { readonly id: number } ? Omit<R, "id"> : never) : never

type Reply = { readonly id: number; readonly ok: true; readonly result: unknown } | { readonly id: number; readonly ok: false; readonly error: ThreadError }

/* eslint-disable @typescript-eslint/no-explicit-any */
/**
 * The thread's program. Opening: writable with WAL, `synchronous = FULL` and the busy timeout when
 * it can be; else, for an existing file on a medium that refuses writing, read-only as immutable
 * (WAL cannot even open it for reading without creating its -shm file).
 */
function threadMain(load: (id: string) => any): void {
  const { parentPort } = load("node:worker_threads")
  const { existsSync } = load("node:fs")
  const isBun = typeof (globalThis as any).Bun !== "undefined"
  let db: any = null
  const cache = new Map<string, any>()
  const nodeSqlite = () => {
    // node:sqlite's one-time "experimental" warning is not for the user.
    const emitWarning = process.emitWarning
    process.emitWarning = ((warning: any, ...rest: Array<any>) => {
      if (String(warning instanceof Error ? warning.message : warning).includes("SQLite is an experimental feature")) return
      return (emitWarning as any).call(process, warning, ...rest)
    }) as any
    try {
      return load("node:sqlite")
    } catch (cause) {
      throw new Error(`the SQLite store needs Bun or Node ≥ 22.13 (node:sqlite); this is Node ${process.versions.node}`, { cause })
    } finally {
      process.emitWarning = emitWarning
    }
  }
  const openNative = (filename: string, readonly: boolean) =>
    isBun ? new (load("bun:sqlite").Database)(filename, readonly ? { readonly: true } : { create: true }) : new (nodeSqlite().DatabaseSync)(filename, readonly ? { readOnly: true } : {})
  const openImmutable = (filename: string) => {
    const uri = `file:${filename.split("/").map(encodeURIComponent).join("/")}?immutable=1`
    // SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
    return isBun ? new (load("bun:sqlite").Database)(uri, 0x01 | 0x40) : new (nodeSqlite().DatabaseSync)(uri, { readOnly: true })
  }
  const open = (o: { filename: string; busyTimeoutMs: number; readonly: boolean }) => {
    if (o.readonly) {
      db = openImmutable(o.filename)
      return { readOnly: true }
    }
    let opened: any
    try {
      opened = openNative(o.filename, false)
      opened.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(o.busyTimeoutMs))}`)
      opened.exec("PRAGMA journal_mode = WAL")
      opened.exec("PRAGMA synchronous = FULL")
      db = opened
      return { readOnly: false }
    } catch (cause) {
      opened?.close()
      // Only a medium that refuses writing: a busy or damaged database must fail, not be read stale.
      if (!existsSync(o.filename) || !/readonly|read-only|unable to open/i.test(String((cause as any)?.message ?? cause))) throw cause
      try {
        db = openImmutable(o.filename)
      } catch {
        throw cause
      }
      return { readOnly: true }
    }
  }
  // SQLite binds numbers, strings, bigints, bytes and null; booleans become 0/1.
  const bindable = (v: unknown) => (typeof v === "boolean" ? (v ? 1 : 0) : v === undefined ? null : v)
  const run = (sql: string, params: ReadonlyArray<unknown>, prepare: boolean) => {
    const bound = params.map(bindable)
    if (prepare) {
      let statement = cache.get(sql)
      if (statement === undefined) cache.set(sql, (statement = db.prepare(sql)))
      return statement.all(...bound)
    }
    const statement = db.prepare(sql)
    try {
      return statement.all(...bound)
    } finally {
      // bun:sqlite: a statement left unfinalized keeps the file open after close().
      statement.finalize?.()
    }
  }
  const close = () => {
    for (const statement of cache.values()) statement.finalize?.()
    cache.clear()
    db?.close()
    db = null
    return null
  }
  parentPort.on("message", (m: any) => {
    try {
      const result = m.op === "open" ? open(m.options) : m.op === "run" ? run(m.sql, m.params, m.prepare) : close()
      parentPort.postMessage({ id: m.id, ok: true, result })
    } catch (e: any) {
      const error: Record<string, unknown> = { message: String(e?.message ?? e) }
      for (const k of ["name", "code", "errno", "errcode", "errstr"]) if (e?.[k] !== undefined) error[k] = e[k]
      parentPort.postMessage({ id: m.id, ok: false, error })
    }
  })
}
/* eslint-enable @typescript-eslint/no-explicit-any */

/** The error a failed call rejects with: an Error carrying the SQLite error's fields. */
const errorOf = (e: ThreadError): Error => Object.assign(new Error(e.message), e)

/**
 * The thread and its calls, answered in the order they were sent. The thread keeps the process
 * alive only while a call is waiting for its answer.
 */
export class SqliteThread {
  private readonly worker: Worker
  private readonly waiting = new Map<number, { readonly resolve: (v: unknown) => void; readonly reject: (e: Error) => void }>()
  private next = 0
  private ended: Error | null = null

  constructor() {
    this.worker = new Worker(`(${threadMain.toString()})(require)`, { eval: true })
    this.worker.unref()
    this.worker.on("message", (reply: Reply) => this.answer(reply))
    this.worker.on("error", (e) => this.end(e instanceof Error ? e : new Error(String(e))))
    this.worker.on("exit", () => this.end(new Error("the SQLite thread ended")))
  }

  /** Opens the database on the thread: whether it could only be opened for reading. */
  open(options: ThreadOpenOptions): Promise<{ readonly readOnly: boolean }> {
    return this.call({ op: "open", options }) as Promise<{ readonly readOnly: boolean }>
  }

  /** One statement's rows (`prepare`: kept prepared on the thread for the next call with the same text). */
  run(sql: string, params: ReadonlyArray<unknown>, prepare: boolean): Promise<ReadonlyArray<Record<string, unknown>>> {
    return this.call({ op: "run", sql, params, prepare }) as Promise<ReadonlyArray<Record<string, unknown>>>
  }

  /** Closes the database, then ends the thread. */
  async close(): Promise<void> {
    try {
      await this.call({ op: "close" })
    } finally {
      this.ended ??= new Error("the SQLite connection is closed")
      await this.worker.terminate()
    }
  }

  private call(request: Call): Promise<unknown> {
    if (this.ended !== null) return Promise.reject(this.ended)
    const id = this.next++
    return new Promise((resolve, reject) => {
      if (this.waiting.size === 0) this.worker.ref()
      this.waiting.set(id, { resolve, reject })
      this.worker.postMessage({ ...request, id })
    })
  }

  private answer(reply: Reply): void {
    const waiter = this.waiting.get(reply.id)
    if (waiter === undefined) return
    this.waiting.delete(reply.id)
    if (this.waiting.size === 0) this.worker.unref()
    if (reply.ok) waiter.resolve(reply.result)
    else waiter.reject(errorOf(reply.error))
  }

  /** The thread is gone: every waiting call fails, and so does every later one. */
  private end(e: Error): void {
    this.ended ??= e
    for (const waiter of this.waiting.values()) waiter.reject(e)
    this.waiting.clear()
  }
}
