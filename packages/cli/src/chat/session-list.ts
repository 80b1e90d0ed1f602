/**
 * The sessions kept in a `--session-dir`, for `/sessions`: each session is one file there, named
 * after its id. Read through the store, so a damaged file is reported, not guessed at.
 */
import type { SessionStoreShape } from "@loopguard/effect"
import { Cause, Effect, Exit } from "effect"
import { readdirSync, statSync } from "node:fs"
import { join } from "node:path"

export interface SessionSummary {
  readonly id: string
  /** Null when the session could not be read (`problem` says why). */
  readonly messages: number | null
  readonly problem?: string
  readonly updated: Date
}

const SESSION_FILE = /^(.+)\.jsonl$/

export const listSessions = (dir: string, store: SessionStoreShape): Effect.Effect<ReadonlyArray<SessionSummary>> =>
  Effect.gen(function* () {
    let names: Array<string>
    try {
      names = readdirSync(dir)
    } catch {
      return []
    }
    const out: Array<SessionSummary> = []
    for (const name of names.sort()) {
      const id = SESSION_FILE.exec(name)?.[1]
      if (id === undefined) continue
      const read = yield* Effect.exit(store.messages(id))
      const updated = statSync(join(dir, name)).mtime
      if (Exit.isSuccess(read)) out.push({ id, messages: read.value.length, updated })
      else out.push({ id, messages: null, problem: Cause.pretty(read.cause).split("\n")[0] ?? "unreadable", updated })
    }
    return out.sort((a, b) => b.updated.getTime() - a.updated.getTime())
  })

const stamp = (d: Date) => d.toISOString().slice(0, 16).replace("T", " ")

export const formatSessions = (sessions: ReadonlyArray<SessionSummary>, current: string): ReadonlyArray<string> =>
  sessions.length === 0
    ? ["no sessions kept yet"]
    : sessions.map((s) => {
        const size = s.messages === null ? `cannot be read (${s.problem})` : `${s.messages} message${s.messages === 1 ? "" : "s"}`
        return `  ${s.id === current ? "*" : " "} ${s.id} · ${size} · updated ${stamp(s.updated)} UTC`
      })
