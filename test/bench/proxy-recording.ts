/**
 * What the proxy's session recording costs per request as a conversation grows (`--session-dir`,
 * and Postgres when TEST_POSTGRES_URL is set). Every request of an agent carries the whole
 * conversation; the recorder stores what the store does not hold yet. Measured: the recorder
 * (the session's ids read, the new messages appended in one write, the lease let go) against the
 * way it worked before 438629c, kept here as the reference: the whole session read back and
 * decoded, then one write per new message. Both on the same store, the same conversation
 * (2 messages of about 1 KB per request), in this one run; the figures are the mean of 10
 * requests up to each step, after both ways ran 20 requests of another conversation.
 *
 *   bun run test/bench/proxy-recording.ts [STEPS]
 */
import type { Message } from "@loopguard/core/model"
import { Effect } from "effect"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { makeDurableStore, redactUrl, type SessionStoreShape } from "../../packages/effect/src/store/index.js"
import { makeRecorder } from "../../packages/proxy/src/recorder.js"

/** Request `n` of a conversation: the user turn, then per step a reply with a call and the call's result. */
const conversation = (steps: number): Array<Message> => {
  const out: Array<Message> = [{ role: "user", id: "m0", text: "fix the failing test in src/parser.ts" }]
  for (let i = 0; i < steps; i++) {
    out.push({
      role: "assistant",
      id: `m${out.length}`,
      parentId: "m0",
      step: i,
      finish: "tool-calls",
      parts: [{ type: "text", text: `Step ${i}: reading the next part of the parser.` }, { type: "tool", callId: `c${i}`, name: "read", input: { path: `src/parser-${i}.ts` }, state: "pending" }]
    })
    out.push({ role: "user", id: `m${out.length}`, text: `export const part${i} = (s: string) => s.split("\\n").map((l) => l.trim())\n`.repeat(12) })
  }
  return out
}

/**
 * CPU time this process's main thread (its event loop) has run, in ms: the kernel's schedstat
 * (Linux), else null. The recorder's statements run on the store's thread; what they cost the
 * event loop is what a proxy's other streams wait behind.
 */
const eventLoopCpuMs = (): number | null => {
  try {
    return Number(readFileSync("/proc/thread-self/schedstat", "utf8").split(" ")[0]) / 1e6
  } catch {
    return null
  }
}

/** The recorder before 438629c: the whole session read, then one write per message it did not hold. */
const readWholeThenAppend = (store: SessionStoreShape, session: string, messages: ReadonlyArray<Message>) =>
  Effect.gen(function* () {
    const held = new Set((yield* store.messages(session)).map((m) => m.id))
    for (const m of messages) if (!held.has(m.id)) yield* store.append(session, m)
  }).pipe(Effect.ensuring(store.release === undefined ? Effect.void : store.release(session).pipe(Effect.ignore)))

const measure = (target: string, steps: number) =>
  Effect.scoped(
    Effect.gen(function* () {
      const store = yield* makeDurableStore(target)
      const recorder = makeRecorder(store, (m) => console.log(`  store error: ${m}`), 5_000)
      const marks = [10, Math.floor(steps / 2), steps]
      const rows: Array<{ step: number; now: number; before: number }> = []
      const tag = Date.now()
      // Both ways once over a short conversation first: the figures are not of the first calls.
      for (let step = 1; step <= 20; step++) {
        recorder.record(`warm-${tag}`, conversation(step))
        yield* Effect.promise(() => recorder.idle())
        yield* readWholeThenAppend(store, `warm-old-${tag}`, conversation(step))
      }
      let now = 0
      let before = 0
      let loopMs = 0
      for (let step = 1; step <= steps; step++) {
        const messages = conversation(step)
        const cpu0 = eventLoopCpuMs()
        const t0 = performance.now()
        recorder.record(`new-${tag}`, messages)
        yield* Effect.promise(() => recorder.idle())
        const t1 = performance.now()
        const cpu1 = eventLoopCpuMs()
        if (cpu0 !== null && cpu1 !== null) loopMs += cpu1 - cpu0
        yield* readWholeThenAppend(store, `old-${tag}`, messages)
        const t2 = performance.now()
        now += t1 - t0
        before += t2 - t1
        if (step % 10 === 0 && marks.includes(step)) {
          rows.push({ step, now: now / 10, before: before / 10 })
        }
        if (step % 10 === 0) now = before = 0
      }
      return { rows, loopMsPerRequest: eventLoopCpuMs() === null ? null : loopMs / steps }
    })
  )

export const main = async (steps = 300): Promise<void> => {
  const dir = mkdtempSync(join(tmpdir(), "lg-bench-recording-"))
  try {
    const targets = [dir, ...(process.env["TEST_POSTGRES_URL"] !== undefined ? [process.env["TEST_POSTGRES_URL"]] : [])]
    console.log(`proxy session recording: per request, as the conversation grows (2 messages of about 1 KB per step)`)
    for (const target of targets) {
      const { rows, loopMsPerRequest } = await Effect.runPromise(measure(target, steps))
      console.log(`  ${target === dir ? "SQLite (--session-dir)" : `Postgres (${redactUrl(target)})`}`)
      if (loopMsPerRequest !== null) console.log(`    the recorder's CPU on the event loop: ${loopMsPerRequest.toFixed(2)} ms per request (mean of ${steps})`)
      for (const r of rows) {
        console.log(`    step ${String(r.step).padStart(4)} (${2 * r.step + 1} messages): ${r.now.toFixed(2)} ms per request; reading the whole session and writing each message: ${r.before.toFixed(2)} ms (${(r.before / r.now).toFixed(1)}× as long)`)
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.main) await main(Number(process.argv[2] ?? 300))
