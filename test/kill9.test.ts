/**
 * kill -9 at random moments: 20 `loopguard run` processes on one SQLite session folder,
 * each killed by SIGKILL at a seeded random moment while its model keeps asking for a tool that
 * appends a unique token to a marker file. Afterwards, judged from the files: every session loads
 * and exports as trace v1, every token in the marker file (a tool that ran) is a call in the store
 * — written ahead, so no step whose tool ran is lost — and every session resumes over HTTP.
 */
import { textStream, toolCallStream } from "@loopguard/ai-sdk/testing"
import { toolPartsOf, type Message } from "@loopguard/core/model"
import { parseTrace } from "@loopguard/core/trace"
import { layerSqliteStore, RunLoop } from "@loopguard/effect"
import { exportTrace, makeSqliteStore } from "@loopguard/effect/store"
import { expect } from "bun:test"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { it } from "./effect-test.js"
import { scriptedServer } from "./scoped-resources.js"
import { harness } from "./harness.js"

const TRIALS = 20
const ROOT = resolve(import.meta.dir, "..")

/** mulberry32: the kill moments are random but the same on every run. */
const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/** A tool of the trial that began at request `first` has written its token. */
const ranSince = (file: string, first: number): boolean =>
  existsSync(file) && readFileSync(file, "utf8").split("\n").some((l) => /^k\d+$/.test(l) && Number(l.slice(1)) >= first)

const tokensIn = (messages: ReadonlyArray<Message>): Set<string> => {
  const found = new Set<string>()
  for (const m of messages) {
    if (m.role !== "assistant") continue
    for (const p of toolPartsOf(m)) for (const t of JSON.stringify(p.input).match(/k\d+/g) ?? []) found.add(t)
  }
  return found
}

it.live(`kill -9 at ${TRIALS} random moments: every session loads, exports and resumes; no tool that ran is missing from the store`, () => Effect.gen(function* () {
  const dir = mkdtempSync(join(tmpdir(), "lg-kill9-"))
  const cwd = join(dir, "work")
  mkdirSync(cwd)
  const marker = join(dir, "marker.txt")
  const server = yield* scriptedServer((_body: unknown, i: number) => toolCallStream("bash", { command: `echo k${i} >> ${marker}` }, { id: `call_k${i}` }))
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("LOOPGUARD_")))
  const random = prng(14)
  for (let n = 0; n < TRIALS; n++) {
    // Requests are numbered across trials; this trial's tools write tokens k<firstRequest> and up.
    const firstRequest = server.requests.length
    const child = spawn(
      process.execPath,
      ["run", "packages/cli/src/main.ts", "run", "--base-url", server.baseURL, "--model", "m", "--prompt", "keep going", "--max-steps", "5000", "--cwd", cwd, "--session-dir", dir, "--session", `t${n}`, "--json"],
      { cwd: ROOT, env, stdio: ["ignore", "ignore", "ignore"] }
    )
    const closed = new Promise<void>((done) => child.on("close", () => done()))
    // Wait until this trial's first tool has run, then kill at a random moment after it: every
    // trial has something to lose, and the moment falls anywhere in the step cycle.
    const started = Date.now()
    while (!ranSince(marker, firstRequest) && Date.now() - started < 30_000) yield* Effect.sleep("10 millis")
    yield* Effect.sleep(Math.floor(random() * 400))
    child.kill("SIGKILL")
    yield* Effect.promise(() => closed)
  }

  const ran = new Set(existsSync(marker) ? readFileSync(marker, "utf8").split("\n").filter((l) => l !== "") : [])
  const sessions = yield* Effect.scoped(
    Effect.gen(function* () {
      const store = yield* makeSqliteStore(dir)
      const out: Array<{ id: string; messages: ReadonlyArray<Message> }> = []
      for (let n = 0; n < TRIALS; n++) out.push({ id: `t${n}`, messages: yield* store.messages(`t${n}`) })
      return out
    })
  )
  const stored = new Set<string>()
  for (const s of sessions) {
    for (const t of tokensIn(s.messages)) stored.add(t)
    expect(parseTrace(exportTrace(s.id, s.messages), `${s.id}.jsonl`).errors).toEqual([])
  }
  const lost = [...ran].filter((t) => !stored.has(t))
  process.stderr.write(`kill9: ${TRIALS} trials, ${sessions.filter((s) => s.messages.length > 0).length} sessions with history, ${ran.size} tool runs in the marker file, ${stored.size} calls stored, ${lost.length} lost\n`)
  expect(ran.size).toBeGreaterThanOrEqual(TRIALS)
  expect(lost).toEqual([])

  // Every session resumes: the dead writer's lease is taken over and the model is asked again.
  const h = yield* harness((_body: unknown) => textStream("resumed"), { store: layerSqliteStore(dir) })
  for (const s of sessions) {
    if (s.messages.length === 0) continue
    const r = yield* h.provide(Effect.flatMap(RunLoop, (loop) => loop.run({ sessionId: s.id })))
    expect([s.id, r.report.reason]).toEqual([s.id, "final"])
  }
}), 240_000)
