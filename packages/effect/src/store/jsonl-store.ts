/**
 * A durable SessionStore: every change is one JSON line appended to `<dir>/<sessionId>.jsonl`
 * (append-only on disk as in memory), and a session is rebuilt by replaying its lines the first
 * time it is read, so a run can be resumed or inspected after the process is gone.
 */
import type { AssistantMessage, CropMarker, ExclusionReason, Message } from "@loopguard/core/model"
import { Effect, Layer } from "effect"
import { appendFileSync, existsSync, mkdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { makeMemoryStore, SessionStore, type SessionStoreShape } from "./SessionStore.js"

type Op =
  | { readonly op: "append"; readonly message: Message }
  | { readonly op: "put"; readonly message: AssistantMessage }
  | { readonly op: "exclude"; readonly id: string; readonly reason: ExclusionReason }
  | { readonly op: "crop"; readonly on: string; readonly crop: CropMarker }

/** Session ids become file names: anything outside [A-Za-z0-9._-] is replaced. */
export const sessionFile = (dir: string, sessionId: string): string => join(dir, `${sessionId.replace(/[^A-Za-z0-9._-]/g, "_")}.jsonl`)

/** A durable store: one append-only JSON Lines file per session in `dir`, replayed on first read. */
export const makeJsonlStore = (dir: string): SessionStoreShape => {
  mkdirSync(dir, { recursive: true })
  const memory = makeMemoryStore()
  const loaded = new Set<string>()
  const write = (sessionId: string, op: Op) => appendFileSync(sessionFile(dir, sessionId), JSON.stringify(op) + "\n")

  /** Replays the file into memory once; a damaged line names file:line and stops the load. */
  const load = (sessionId: string) =>
    Effect.gen(function* () {
      if (loaded.has(sessionId)) return
      loaded.add(sessionId)
      const file = sessionFile(dir, sessionId)
      if (!existsSync(file)) return
      const lines = readFileSync(file, "utf8").split("\n")
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i]!.trim()
        if (line === "") continue
        let op: Op
        try {
          op = JSON.parse(line) as Op
        } catch {
          return yield* Effect.die(new Error(`${file}:${i + 1}: not valid JSON; the session cannot be loaded`))
        }
        if (op.op === "append") yield* memory.append(sessionId, op.message)
        else if (op.op === "put") yield* memory.putAssistant(sessionId, op.message)
        else if (op.op === "exclude") yield* memory.exclude(sessionId, op.id, op.reason)
        else if (op.op === "crop") yield* memory.addCrop(sessionId, op.on, op.crop)
      }
    })

  return {
    location: (sessionId) => sessionFile(dir, sessionId),
    messages: (sessionId) => Effect.flatMap(load(sessionId), () => memory.messages(sessionId)),
    append: (sessionId, message) =>
      Effect.flatMap(load(sessionId), () => Effect.andThen(Effect.sync(() => write(sessionId, { op: "append", message })), memory.append(sessionId, message))),
    putAssistant: (sessionId, message) =>
      Effect.flatMap(load(sessionId), () => Effect.andThen(Effect.sync(() => write(sessionId, { op: "put", message })), memory.putAssistant(sessionId, message))),
    exclude: (sessionId, messageId, reason) =>
      Effect.flatMap(load(sessionId), () => Effect.andThen(Effect.sync(() => write(sessionId, { op: "exclude", id: messageId, reason })), memory.exclude(sessionId, messageId, reason))),
    addCrop: (sessionId, userMessageId, crop) =>
      Effect.flatMap(load(sessionId), () => Effect.andThen(Effect.sync(() => write(sessionId, { op: "crop", on: userMessageId, crop })), memory.addCrop(sessionId, userMessageId, crop)))
  }
}

/** The durable store as a Layer: sessions in `<dir>/<sessionId>.jsonl`. */
export const layerJsonlStore = (dir: string): Layer.Layer<SessionStore> => Layer.sync(SessionStore, () => makeJsonlStore(dir))
