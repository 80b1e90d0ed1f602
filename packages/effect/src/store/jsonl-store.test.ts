import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { appendFileSync, mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { makeJsonlStore, sessionFile } from "./jsonl-store.js"

const run = <A>(e: Effect.Effect<A>) => Effect.runPromise(e)

describe("JSONL session store", () => {
  test("a session written by one store is read back whole by a fresh one", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lg-store-"))
    const a = makeJsonlStore(dir)
    await run(a.append("s/1", { role: "user", id: "u0", text: "fix it" }))
    await run(a.putAssistant("s/1", { role: "assistant", id: "a1", parentId: "u0", step: 0, parts: [{ type: "text", text: "partial" }] }))
    await run(a.putAssistant("s/1", { role: "assistant", id: "a1", parentId: "u0", step: 0, parts: [{ type: "text", text: "done" }], finish: "stop" }))
    await run(a.exclude("s/1", "a1", "rollback"))
    await run(a.addCrop("s/1", "u0", { from: "a1", to: "a1", key: "tool:x", truncated: false }))
    const b = makeJsonlStore(dir)
    const messages = await run(b.messages("s/1"))
    expect(messages).toEqual(await run(a.messages("s/1")))
    expect(messages).toHaveLength(2)
    expect(messages[1]).toMatchObject({ excluded: "rollback", finish: "stop" })
    expect(messages[0]).toMatchObject({ crops: [{ key: "tool:x" }] })
    // Append-only on disk: every change is a line, nothing rewritten.
    expect(readFileSync(sessionFile(dir, "s/1"), "utf8").trim().split("\n")).toHaveLength(5)
  })

  test("a damaged line names file:line", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lg-store-"))
    appendFileSync(sessionFile(dir, "x"), '{"op":"append","message":{"role":"user","id":"u","text":"a"}}\n{broken\n')
    await expect(run(makeJsonlStore(dir).messages("x"))).rejects.toThrow(/x\.jsonl:2: not valid JSON/)
  })
})
