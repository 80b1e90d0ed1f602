/**
 * The store contract as one test suite, run unchanged against every durable backend (SQLite in a
 * temp folder, Postgres in a fresh database): round trip, write-ahead records, one writer per
 * session, lease takeover, corrupt records, listing, export/import. Judged from the database.
 */
import type { AssistantMessage, Message } from "@loopguard/core/model"
import { parseTrace } from "@loopguard/core/trace"
import { expect, test } from "bun:test"
import { Effect, Exit, Scope } from "effect"
import { spawnSync } from "node:child_process"
import { hostname } from "node:os"
import { makeDurableStore, openSqlClient } from "./durable.js"
import type { SessionStoreShape, StoreCursor } from "./SessionStore.js"
import type { SessionStoreError } from "./SessionStoreError.js"
import { exportTrace, importTrace } from "./trace-io.js"

/**
 * Plays writes on `writer` and after each one checks that its `changes` (and a second store's,
 * which holds no lease and so reads the rows whole) rebuild exactly what `messages` returns.
 * `refusesTakenIds`: the store refuses an append whose id is stored (the SQL stores; not the memory one).
 */
export const checkChanges = (writer: SessionStoreShape, reader: SessionStoreShape, refusesTakenIds = true) =>
  Effect.gen(function* () {
    const mirrors = [writer, reader].map((store) => ({ store, cursor: null as StoreCursor | null, all: [] as Array<Message> }))
    const check = Effect.gen(function* () {
      const whole = yield* writer.messages("c")
      for (const m of mirrors) {
        const changes = yield* m.store.changes!("c", m.cursor)
        if (changes.reset) m.all = []
        for (const c of changes.changed) m.all[c.index] = c.message
        m.all.length = changes.length
        m.cursor = changes.cursor
        expect(m.all).toEqual([...whole])
      }
    })
    yield* check
    yield* writer.append("c", user("u0", "fix it"))
    yield* check
    for (let n = 1; n <= 4; n++) {
      yield* writer.putAssistant("c", reply(`a${n}`, "u0", n, { finish: "unknown", parts: [{ type: "text", text: "partial" }] }))
      yield* check
      yield* writer.putAssistant("c", reply(`a${n}`, "u0", n))
      yield* check
    }
    yield* writer.exclude("c", "a2", "rollback")
    yield* writer.addCrop("c", "u0", { from: "a1", to: "a3", key: "k", truncated: false })
    yield* check
    // A refused write (the id is taken) leaves the session as it was, and the next read right.
    if (refusesTakenIds) expect((yield* Effect.flip(writer.append("c", user("a1", "again")))).reason).toBe("invalid")
    yield* writer.append("c", user("u5", "next"))
    yield* check
  })

export interface SuiteTarget {
  /** A target no other test uses: a fresh folder or a fresh database URL. */
  readonly fresh: () => Promise<string>
}

const TIMEOUT = 30_000

const user = (id: string, text: string): Message => ({ role: "user", id, text })
const reply = (id: string, parentId: string, step: number, extra: Partial<AssistantMessage> = {}): AssistantMessage => ({
  role: "assistant",
  id,
  parentId,
  step,
  parts: [{ type: "text", text: `reply ${id}` }],
  finish: "stop",
  ...extra
})

/** Runs `f` with stores opened on `target`; every store is closed (lease released) at the end. */
const withScope = <A>(f: (open: (options?: { leaseMs?: number }) => Effect.Effect<SessionStoreShape, SessionStoreError, Scope.Scope>) => Effect.Effect<A, unknown, Scope.Scope>, target: string) =>
  Effect.runPromise(Effect.scoped(f((options) => makeDurableStore(target, options ?? {}))))

/**
 * The pid of a process that ran and ended. A spawn that failed (on a machine short of something for a
 * moment) reports pid 0, which is no process that ever ran: such a spawn is tried again.
 */
const goneProcessPid = (): number => {
  for (let tries = 0; tries < 5; tries++) {
    const ran = spawnSync(process.execPath, ["-e", "0"])
    if (ran.pid > 0 && ran.status === 0) return ran.pid
  }
  throw new Error("could not run a short-lived process to take its pid")
}

const failure = async (e: Effect.Effect<unknown, SessionStoreError>): Promise<SessionStoreError> => {
  const exit = await Effect.runPromiseExit(e)
  if (Exit.isSuccess(exit)) throw new Error("expected the store to refuse")
  const reason = exit.cause.reasons[0]
  if (reason === undefined || reason._tag !== "Fail") throw new Error(`expected a typed failure, got ${String(exit.cause)}`)
  return reason.error
}

/** Raw SQL on the target's database, to corrupt or age what the store wrote. */
const raw = (target: string, statement: string) =>
  Effect.runPromise(Effect.scoped(Effect.flatMap(openSqlClient(target), ({ client }) => client.unsafe(statement))))

export const storeSuite = (name: string, target: SuiteTarget) => {
  test(`${name}: what changed since a cursor, applied in order, is the session a whole read gives (mirror, failed write, other reader)`, async () => {
    const t = await target.fresh()
    await withScope(
      (open) =>
        Effect.gen(function* () {
          const a = yield* open()
          const b = yield* open()
          yield* checkChanges(a, b)
        }),
      t
    )
  }, TIMEOUT)

  test(`${name}: a session written by one store is read back whole by a fresh one`, async () => {
    const t = await target.fresh()
    const written = await withScope((open) =>
      Effect.gen(function* () {
        const a = yield* open()
        yield* a.append("s/1", user("u0", "fix it"))
        yield* a.putAssistant("s/1", reply("a1", "u0", 0, { parts: [{ type: "text", text: "partial" }], finish: "unknown" }))
        yield* a.putAssistant("s/1", reply("a1", "u0", 0, { usage: { inputTokens: 10, outputTokens: 2 } }))
        yield* a.exclude("s/1", "a1", "rollback")
        yield* a.addCrop("s/1", "u0", { from: "a1", to: "a1", key: "tool:x", truncated: false })
        yield* a.append("s/1", { role: "user", id: "r2", text: "continue", synthetic: "continue" })
        yield* a.append("s/1", { role: "user", id: "r3", text: "summary", synthetic: "compaction", compacts: { from: "a1", to: "r2" } })
        // A field the store's Schema does not know yet is kept, not stripped.
        yield* a.append("s/1", { role: "user", id: "r4", text: "later", futureField: { kept: true } } as unknown as Message)
        return yield* a.messages("s/1")
      }), t)
    const reread = await withScope((open) => Effect.flatMap(open(), (b) => b.messages("s/1")), t)
    expect(reread).toEqual(written)
    expect(reread.map((m) => m.id)).toEqual(["u0", "a1", "r2", "r3", "r4"])
    expect(reread[3]).toMatchObject({ compacts: { from: "a1", to: "r2" } })
    expect(reread[4]).toMatchObject({ futureField: { kept: true } })
    expect(reread[1]).toMatchObject({ excluded: "rollback", finish: "stop", usage: { inputTokens: 10 } })
    expect(reread[0]).toMatchObject({ crops: [{ key: "tool:x" }] })
  }, TIMEOUT)

  test(`${name}: a tool call written ahead stays visible as running until its result is written`, async () => {
    const t = await target.fresh()
    const call = { type: "tool", callId: "c1", name: "bash", input: { command: "make" } } as const
    await withScope((open) =>
      Effect.gen(function* () {
        const a = yield* open()
        yield* a.append("w", user("u0", "build"))
        yield* a.putAssistant("w", reply("a1", "u0", 0, { parts: [{ ...call, state: "running" }], finish: undefined as never }))
      }), t)
    const ahead = await withScope((open) => Effect.flatMap(open(), (b) => b.messages("w")), t)
    expect((ahead[1] as AssistantMessage).parts[0]).toMatchObject({ callId: "c1", state: "running" })
  }, TIMEOUT)

  test(`${name}: a second writer of one session is refused, names the holder, and writes nothing`, async () => {
    const t = await target.fresh()
    await withScope((open) =>
      Effect.gen(function* () {
        const a = yield* open()
        const b = yield* open()
        yield* a.append("shared", user("u0", "first"))
        const refused = yield* Effect.promise(() => failure(b.append("shared", user("u1", "second"))))
        expect(refused.reason).toBe("locked")
        expect(refused.message).toContain("session shared is being written by another process")
        expect(refused.message).toContain(`${hostname()}:${process.pid}`)
        // Readers are never refused, and the refused write left no trace.
        expect((yield* b.messages("shared")).map((m) => m.id)).toEqual(["u0"])
        // Other sessions are free.
        yield* b.append("other", user("v0", "mine"))
      }), t)
  }, TIMEOUT)

  test(`${name}: a writer that releases a session lets another write it, and can write it again after`, async () => {
    const t = await target.fresh()
    await withScope((open) =>
      Effect.gen(function* () {
        const a = yield* open()
        const b = yield* open()
        yield* a.append("turns", user("u0", "first"))
        yield* a.release!("turns")
        yield* b.putAssistant("turns", reply("a1", "u0", 0))
        yield* b.release!("turns")
        yield* a.append("turns", user("u2", "again"))
        expect((yield* b.messages("turns")).map((m) => m.id)).toEqual(["u0", "a1", "u2"])
        // Releasing what this writer does not hold changes nothing.
        yield* b.release!("turns")
        expect((yield* Effect.promise(() => failure(b.append("turns", user("u3", "refused"))))).reason).toBe("locked")
      }), t)
  }, TIMEOUT)

  test(`${name}: appendAll with release lets go of the lease in the same write; a refused one lets go of nothing`, async () => {
    const t = await target.fresh()
    await withScope((open) =>
      Effect.gen(function* () {
        const a = yield* open()
        const b = yield* open()
        yield* a.appendAll!("turns", [user("u0", "first"), reply("a1", "u0", 0)], { release: true })
        // Free at once: the other writer takes the next turn, and lets go the same way.
        yield* b.appendAll!("turns", [user("u2", "second")], { release: true })
        expect(yield* a.messageIds!("turns")).toEqual(["u0", "a1", "u2"])
        // A write refused (an id already stored) rolls back whole: the lease it claimed is not kept either.
        const stored = yield* Effect.promise(() => failure(a.appendAll!("turns", [user("u2", "again")], { release: true })))
        expect(stored.reason).toBe("invalid")
        yield* b.append("turns", user("u3", "b holds it now"))
        expect((yield* Effect.promise(() => failure(a.appendAll!("turns", [user("u4", "refused")], { release: true })))).reason).toBe("locked")
        expect(yield* a.messageIds!("turns")).toEqual(["u0", "a1", "u2", "u3"])
      }), t)
  }, TIMEOUT)

  test(`${name}: any worker resumes a session once its writer has closed`, async () => {
    const t = await target.fresh()
    await withScope((open) => Effect.flatMap(open(), (a) => a.append("s", user("u0", "start"))), t)
    const all = await withScope((open) =>
      Effect.gen(function* () {
        const b = yield* open()
        yield* b.putAssistant("s", reply("a1", "u0", 0))
        return yield* b.messages("s")
      }), t)
    expect(all.map((m) => m.id)).toEqual(["u0", "a1"])
  }, TIMEOUT)

  test(`${name}: an expired lease, or one held by a dead process on this host, is taken over; the old writer is fenced off`, async () => {
    const t = await target.fresh()
    await withScope((open) =>
      Effect.gen(function* () {
        const a = yield* open({ leaseMs: 60_000 })
        yield* a.append("x", user("u0", "a"))
        yield* a.append("y", user("v0", "a"))
        // x: another host's lease that ran out; y: a live-looking lease of a process that is gone.
        const dead = goneProcessPid()
        yield* Effect.promise(() => raw(t, `UPDATE loopguard_sessions SET owner = 'elsewhere', owner_host = 'elsewhere', owner_pid = 1, lease_until = 1 WHERE id = 'x'`))
        yield* Effect.promise(() => raw(t, `UPDATE loopguard_sessions SET owner = 'gone', owner_host = '${hostname()}', owner_pid = ${dead}, lease_until = ${Date.now() + 3_600_000} WHERE id = 'y'`))
        const b = yield* open()
        yield* b.append("x", user("u1", "b"))
        yield* b.append("y", user("v1", "b"))
        const fenced = yield* Effect.promise(() => failure(a.append("x", user("u2", "late"))))
        expect(fenced.reason).toBe("lease-lost")
        expect((yield* b.messages("x")).map((m) => m.id)).toEqual(["u0", "u1"])
        expect((yield* b.messages("y")).map((m) => m.id)).toEqual(["v0", "v1"])
      }), t)
  }, TIMEOUT)

  test(`${name}: a writer paused past its lease is fenced off even after the next writer released the session`, async () => {
    const t = await target.fresh()
    await withScope((open) =>
      Effect.gen(function* () {
        const a = yield* open({ leaseMs: 60_000 })
        yield* a.append("p", user("u0", "a's turn"))
        // A is paused past its lease: nothing renews it, it runs out.
        yield* Effect.promise(() => raw(t, `UPDATE loopguard_sessions SET lease_until = 1 WHERE id = 'p'`))
        yield* Effect.scoped(
          Effect.gen(function* () {
            const b = yield* makeDurableStore(t, {})
            yield* b.append("p", user("u1", "b's turn"))
            yield* b.putAssistant("p", reply("a2", "u1", 0))
          })
        )
        // B closed: the lease is free. A resumes and writes what it had in hand.
        const fenced = yield* Effect.promise(() => failure(a.putAssistant("p", reply("a2", "u0", 0, { parts: [{ type: "text", text: "stale" }] }))))
        expect(fenced.reason).toBe("lease-lost")
        expect(fenced.message).toMatch(/^session p: this process's write lease \(token 1\) was taken over .*already finished .*nothing more was written/)
        expect(fenced.message).not.toContain("\n")
        // Every later write of the stale store is refused too, not only the first.
        expect((yield* Effect.promise(() => failure(a.append("p", user("u9", "again"))))).reason).toBe("lease-lost")
        const kept = yield* a.messages("p")
        expect(kept.map((m) => m.id)).toEqual(["u0", "u1", "a2"])
        expect(kept[2]).toMatchObject({ parts: [{ type: "text", text: "reply a2" }] })
      }), t)
  }, TIMEOUT)

  test(`${name}: importSession writes a whole session or nothing`, async () => {
    const t = await target.fresh()
    await withScope((open) =>
      Effect.gen(function* () {
        const a = yield* open()
        const repeated = yield* Effect.promise(() => failure(a.importSession!("imp", [user("u0", "a"), reply("a1", "u0", 0), user("u0", "again")])))
        expect(repeated.reason).toBe("invalid")
        expect(repeated.message).toBe("session imp: message #2 repeats the id u0; nothing was imported")
        expect(yield* a.messages("imp")).toEqual([])
        yield* a.importSession!("imp", [user("u0", "a"), reply("a1", "u0", 0)])
        expect((yield* a.messages("imp")).map((m) => m.id)).toEqual(["u0", "a1"])
        expect((yield* Effect.promise(() => failure(a.importSession!("imp", [user("v0", "b")])))).message).toContain("already exists")
      }), t)
  }, TIMEOUT)

  test(`${name}: appendAll writes its messages in one go or none; messageIds lists the ids without the messages`, async () => {
    const t = await target.fresh()
    await withScope((open) =>
      Effect.gen(function* () {
        const a = yield* open()
        yield* a.append("b", user("u0", "a"))
        // A reader that keeps up through `changes` sees the batch as it would single appends.
        const before = yield* a.changes!("b", null)
        yield* a.appendAll!("b", [reply("a1", "u0", 0), user("u2", "b")])
        const after = yield* a.changes!("b", before.cursor)
        expect(after.changed.map((c) => [c.index, c.message.id])).toEqual([[1, "a1"], [2, "u2"]])
        expect(yield* a.messageIds!("b")).toEqual(["u0", "a1", "u2"])
        const stored = yield* Effect.promise(() => failure(a.appendAll!("b", [user("u3", "c"), user("u2", "again")])))
        expect(stored.reason).toBe("invalid")
        expect(stored.message).toBe("session b: a message with id u2 is already stored")
        const repeated = yield* Effect.promise(() => failure(a.appendAll!("b", [user("u4", "d"), user("u4", "e")])))
        expect(repeated.message).toBe("session b: message #1 repeats the id u4; nothing was appended")
        expect(yield* a.messageIds!("b")).toEqual(["u0", "a1", "u2"])
        expect((yield* a.messages("b"))[1]).toEqual(reply("a1", "u0", 0))
        expect(yield* a.messageIds!("none")).toEqual([])
      }), t)
  }, TIMEOUT)

  test(`${name}: a corrupt record is salvaged around: the rest loads, a stand-in names the record and why`, async () => {
    const t = await target.fresh()
    await withScope((open) =>
      Effect.gen(function* () {
        const a = yield* open()
        yield* a.append("c", user("u0", "ok"))
        yield* a.putAssistant("c", reply("a1", "u0", 0))
      }), t)
    const read = (open: (o?: { leaseMs?: number }) => Effect.Effect<SessionStoreShape, SessionStoreError, Scope.Scope>) =>
      Effect.flatMap(open(), (s) => s.messages("c"))
    const standIn = async () => {
      const all = await withScope(read, t)
      expect(all.map((m) => m.id)).toEqual(["u0", "a1"])
      expect(all[0]).toMatchObject({ role: "user", text: "ok" })
      expect(all[1]).toMatchObject({ role: "assistant", excluded: "replayed" })
      return (all[1] as AssistantMessage).parts[0]?.type === "text" ? ((all[1] as AssistantMessage).parts[0] as { text: string }).text : ""
    }
    await raw(t, `UPDATE loopguard_messages SET body = '{"role":"assistant","id":"a1","par' WHERE id = 'a1'`)
    expect(await standIn()).toMatch(/^\[loopguard: session c, record #1 \(a1\) could not be read and was left out: not valid JSON/)
    await raw(t, `UPDATE loopguard_messages SET body = 'null' WHERE id = 'a1'`)
    expect(await standIn()).toMatch(/record #1 \(a1\) could not be read and was left out: not a session message/)
    await raw(t, `UPDATE loopguard_messages SET body = '{"role":"assistant","id":"a1","parentId":"u0","step":-1,"parts":[]}' WHERE id = 'a1'`)
    expect(await standIn()).toMatch(/record #1 \(a1\) could not be read and was left out: not a session message .*step/)
    // The session stays writable: the next reply lands after the stand-in, whose id stays taken.
    const after = await withScope((open) => Effect.flatMap(open(), (s) => Effect.andThen(s.putAssistant("c", reply("a2", "u0", 1)), s.messages("c"))), t)
    expect(after.map((m) => m.id)).toEqual(["u0", "a1", "a2"])
  }, TIMEOUT)

  test(`${name}: list shows every session, newest first, with its writer while the lease is held`, async () => {
    const t = await target.fresh()
    await withScope((open) =>
      Effect.gen(function* () {
        const a = yield* open()
        yield* a.append("old", user("u0", "a"))
        yield* Effect.sleep("5 millis")
        yield* a.append("new", user("v0", "a"))
        yield* a.putAssistant("new", reply("v1", "v0", 0))
        const listed = yield* a.list()
        expect(listed.map((s) => [s.id, s.messages, s.steps])).toEqual([["new", 2, 1], ["old", 1, 0]])
        expect(listed[0]!.writer).toBe(`${hostname()}:${process.pid}`)
      }), t)
    const after = await withScope((open) => Effect.flatMap(open(), (s) => s.list()), t)
    expect(after.map((s) => s.writer)).toEqual([null, null])
  }, TIMEOUT)

  test(`${name}: remove deletes whole sessions in one go, keeps one a live writer holds, and names neither an id it never held`, async () => {
    const t = await target.fresh()
    await withScope((open) =>
      Effect.gen(function* () {
        const writer = yield* open()
        yield* writer.append("gone", user("g0", "a"))
        yield* writer.putAssistant("gone", reply("g1", "g0", 0))
        yield* writer.append("kept", user("k0", "a"))
        yield* writer.append("held", user("h0", "a"))
        yield* writer.release!("gone")
        yield* writer.release!("kept")
        // Another process (here, another store) deletes while `writer` still holds "held".
        const person = yield* open()
        const done = yield* person.remove!(["gone", "held", "never", "gone"])
        expect([[...done.removed], [...done.busy]]).toEqual([["gone"], ["held"]])
        expect(yield* person.messages("gone")).toEqual([])
        expect((yield* person.list()).map((s) => s.id).sort()).toEqual(["held", "kept"])
        expect((yield* person.messages("held")).map((m) => m.id)).toEqual(["h0"])
        // The id is free again: a new session under it starts empty.
        yield* person.append("gone", user("n0", "again"))
        expect((yield* person.messages("gone")).map((m) => m.id)).toEqual(["n0"])
        // The holder itself may delete what it holds, and can write that id afresh afterwards.
        expect((yield* writer.remove!(["held"])).removed).toEqual(["held"])
        yield* writer.append("held", user("h9", "new"))
        expect((yield* writer.messages("held")).map((m) => m.id)).toEqual(["h9"])
      }), t)
    // Past the writers' lives, nothing is busy.
    const later = await withScope((open) => Effect.flatMap(open(), (s) => s.remove!(["held", "kept", "gone"])), t)
    expect([[...later.removed].sort(), [...later.busy]]).toEqual([["gone", "held", "kept"], []])
  }, TIMEOUT)

  test(`${name}: export gives trace v1 that audit can read, and import gives the same messages back`, async () => {
    const t = await target.fresh()
    const messages: ReadonlyArray<Message> = [
      user("u0", "run the tests"),
      reply("a1", "u0", 0, {
        parts: [
          { type: "reasoning", text: "check first" },
          { type: "tool", callId: "c1", name: "bash", input: { command: "npm test" }, state: "error", output: "1 failed", exitCode: 1, error: "exit code 1" },
          { type: "tool", callId: "c2", name: "bash", input: { command: "sleep 9" }, state: "running" }
        ],
        finish: "tool-calls"
      })
    ]
    const trace = await withScope((open) =>
      Effect.gen(function* () {
        const a = yield* open()
        for (const m of messages) yield* m.role === "user" ? a.append("e", m) : a.putAssistant("e", m)
        return exportTrace("e", yield* a.messages("e"))
      }), t)
    expect(parseTrace(trace).errors).toEqual([])
    const back = importTrace(trace, "e.jsonl")
    expect(back).toEqual({ ok: true, sessionId: "e", messages })
  }, TIMEOUT)
}
