/**
 * Durable store cost per write: N `putAssistant` calls (each one transaction that also claims the
 * session's lease), then one load of the whole session. SQLite in a temp folder (WAL,
 * synchronous = FULL, so every commit reaches the disk); Postgres too when TEST_POSTGRES_URL is set.
 * Absolute times on a shared machine: read them next to each other, not against another run.
 *
 *   bun run test/bench/store-writes.ts [N]
 */
import { Effect } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { makeDurableStore, redactUrl } from "../../packages/effect/src/store/durable.js"

const measure = (target: string, n: number) =>
  Effect.scoped(
    Effect.gen(function* () {
      const store = yield* makeDurableStore(target)
      const id = `bench-${Date.now()}`
      yield* store.append(id, { role: "user", id: "u0", text: "go" })
      const t0 = performance.now()
      for (let i = 0; i < n; i++) {
        yield* store.putAssistant(id, {
          role: "assistant",
          id: `a${i}`,
          parentId: "u0",
          step: i,
          parts: [{ type: "tool", callId: `c${i}`, name: "bash", input: { command: "ls" }, state: "completed", output: "x".repeat(200) }],
          finish: "tool-calls"
        })
      }
      const t1 = performance.now()
      const loaded = yield* store.messages(id)
      const t2 = performance.now()
      return { perWriteMs: (t1 - t0) / n, loadMs: t2 - t1, messages: loaded.length }
    })
  )

export const main = async (n = 300): Promise<void> => {
  const dir = mkdtempSync(join(tmpdir(), "lg-bench-store-"))
  const targets: Array<[string, string]> = [["sqlite", dir]]
  const pg = process.env["TEST_POSTGRES_URL"]
  if (pg !== undefined && pg !== "") targets.push(["postgres", pg])
  try {
    for (const [name, target] of targets) {
      const r = await Effect.runPromise(measure(target, n))
      console.log(`store ${name} (${name === "sqlite" ? "temp folder" : redactUrl(target)}): ${n} writes, ${r.perWriteMs.toFixed(2)} ms per write; load of ${r.messages} messages ${r.loadMs.toFixed(1)} ms`)
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.main) await main(Number(process.argv[2] ?? 300))
