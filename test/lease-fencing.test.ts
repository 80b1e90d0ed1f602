/**
 * A writer paused longer than its lease, judged from outside: `loopguard run` A is stopped
 * (SIGSTOP) mid-reply, its lease runs out, run B takes the session, answers and exits, and A is
 * resumed (SIGCONT). A's next write must be refused with one line and exit 1; what B stored stays
 * exactly as B left it. On SQLite here, and on Postgres when TEST_POSTGRES_URL is set (.ci/run).
 */
import type { Message } from "@loopguard/core/model"
import { textStream } from "@loopguard/ai-sdk/testing"
import { makeDurableStore } from "@loopguard/effect/store"
import { describe, expect } from "bun:test"
import { Effect } from "effect"
import { join, resolve } from "node:path"
import { it } from "./effect-test.js"
import { cliEnv, liveText, scratch, waitUntil } from "./cli-fixture.js"
import { freshPostgresDatabase } from "./pg-fixture.js"
import { killOnClose } from "./scoped-resources.js"
import { postgresSkipReason, skipName } from "./skip-name.js"

const ROOT = resolve(import.meta.dir, "..")
const TIMEOUT = 120_000
const LEASE_MS = 1000
const { serve, workdir } = scratch("lg-fence-")

const stored = (target: string): Promise<ReadonlyArray<Message>> =>
  Effect.runPromise(Effect.scoped(Effect.flatMap(makeDurableStore(target), (s) => s.messages("shared"))))

const cli = (target: string, baseURL: string, prompt: string, cwd: string) =>
  Bun.spawn(
    [process.execPath, "run", "packages/cli/src/main.ts", "run", "--base-url", baseURL, "--model", "m", "--prompt", prompt, "--session", "shared", "--cwd", cwd,
      ...(target.startsWith("postgres") ? ["--store", target] : ["--session-dir", target])],
    { cwd: ROOT, env: { ...cliEnv(), LOOPGUARD_STORE_LEASE_MS: String(LEASE_MS) }, stdout: "pipe", stderr: "pipe" }
  )

/** A run stopped (SIGSTOP) past its lease while run B takes the session; A is resumed however B's part ends. */
const pausedWriter = (target: string) =>
  Effect.scoped(
    Effect.gen(function* () {
      // A's reply: a first chunk, then the rest a moment later (it waits in the socket while A is stopped).
      const server = yield* Effect.promise(() =>
        serve((_body: unknown, i: number) =>
          i === 0 ? { type: "stream", chunks: [{ text: "A is half way" }, { text: " and done" }], stallAfterChunks: 1, stallMs: 300 } : textStream("B's answer")
        )
      )
      const cwd = workdir()
      const a = yield* killOnClose(cli(target, server.baseURL, "A's prompt", cwd))
      const aErr = liveText(a.stderr)
      const aOut = liveText(a.stdout)
      yield* Effect.promise(() => waitUntil(() => server.requests.length === 1))
      expect(server.requests).toHaveLength(1)
      a.kill("SIGSTOP")
      yield* Effect.gen(function* () {
        yield* Effect.sleep(LEASE_MS * 2.5)
        const b = yield* killOnClose(cli(target, server.baseURL, "B's prompt", cwd))
        const [bCode, bErr] = yield* Effect.promise(() => Promise.all([b.exited, new Response(b.stderr).text()]))
        expect(bErr).toBe("")
        expect(bCode).toBe(0)
      }).pipe(Effect.ensuring(Effect.sync(() => a.kill("SIGCONT"))))
      const afterB = yield* Effect.promise(() => stored(target))
      expect(afterB.filter((m) => m.role === "user").map((m) => (m.role === "user" ? m.text : ""))).toEqual(["A's prompt", "B's prompt"])
      const aCode = yield* Effect.promise(() => a.exited)
      yield* Effect.promise(() => Promise.all([aErr.done, aOut.done]))
      expect(aErr.text.trim().split("\n")).toHaveLength(1)
      expect(aErr.text).toMatch(/^loopguard: session shared: this process's write lease \(token \d+\) was taken over .*nothing more was written/)
      expect(aOut.text + aErr.text).not.toMatch(/\n\s+at /)
      expect(aCode).toBe(1)
      expect(yield* Effect.promise(() => stored(target))).toEqual(afterB)
    })
  )

describe("a writer paused past its lease", () => {
  it.live("SQLite: A resumes after B finished; A's write is refused (one line, exit 1), B's work intact", () => Effect.gen(function* () {
    yield* pausedWriter(join(workdir(), "sessions"))
  }), TIMEOUT)

  const pg = process.env["TEST_POSTGRES_URL"]
  const pgSkip = postgresSkipReason()
  it.live.skipIf(pgSkip !== undefined)(skipName("Postgres: the same, on a fresh database", pgSkip), () => Effect.gen(function* () {
    yield* pausedWriter((yield* Effect.promise(() => freshPostgresDatabase(pg!, "fence"))).toString())
  }), TIMEOUT)
})
