/**
 * The Postgres store going away in the middle of `loopguard run`, judged from outside: the CLI
 * talks to the database through a TCP relay (tcp-proxy.ts) that stops forwarding once the model
 * request is under way, the way a stopped or unreachable server looks to a client. The run must
 * end on its own with one line and exit 1 (store.timeoutMs), and a SIGTERM meanwhile must get
 * its report and exit 143 — not hang. Needs TEST_POSTGRES_URL (.ci/run); fails without it under CI=true.
 */
import { describe, expect } from "bun:test"
import { Effect } from "effect"
import { resolve } from "node:path"
import { it } from "./effect-test.js"
import { cliEnv, liveText, scratch, waitUntil } from "./cli-fixture.js"
import { freshPostgresDatabase } from "./pg-fixture.js"
import { killOnClose } from "./scoped-resources.js"
import { startTcpProxy } from "./tcp-proxy.js"
import { postgresSkipReason, skipName } from "./skip-name.js"

const ROOT = resolve(import.meta.dir, "..")
const TIMEOUT = 150_000
/** Far above what a bounded run needs (a few store deadlines), far below "hangs". */
const ENDS_WITHIN_MS = 90_000
const STORE_TIMEOUT_MS = 2000
const { serve, workdir } = scratch("lg-store-lost-")
const pg = process.env["TEST_POSTGRES_URL"]


/** A relay to `target` (tcp-proxy.ts), closed when the scope closes. */
const relayTo = (target: string) => Effect.acquireRelease(Effect.promise(() => startTcpProxy(target)), (proxy) => Effect.sync(proxy.close))

/** `loopguard run` on a store behind a relay that freezes once the model request arrived; `signal` is sent 500 ms later. */
const runWhileStoreFreezes = (signal?: "SIGTERM") =>
  Effect.scoped(
    Effect.gen(function* () {
      const proxy = yield* relayTo((yield* Effect.promise(() => freshPostgresDatabase(pg!, "lost"))).toString())
      const server = yield* Effect.promise(() => serve(() => ({ type: "stream", chunks: [{ text: "working" }, { text: " and done" }], stallAfterChunks: 1, stallMs: 1500 })))
      const child = yield* killOnClose(Bun.spawn(
        [process.execPath, "run", "packages/cli/src/main.ts", "run", "--base-url", server.baseURL, "--model", "m", "--prompt", "hi", "--cwd", workdir(), "--store", proxy.url],
        { cwd: ROOT, env: { ...cliEnv(), LOOPGUARD_STORE_TIMEOUT_MS: String(STORE_TIMEOUT_MS) }, stdout: "pipe", stderr: "pipe" }
      ))
      const out = liveText(child.stdout)
      const err = liveText(child.stderr)
      let exited = false
      void child.exited.then(() => (exited = true))
      yield* Effect.promise(() => waitUntil(() => server.requests.length === 1 || exited))
      proxy.freeze()
      if (signal !== undefined) {
        yield* Effect.sleep(500)
        child.kill(signal)
      }
      yield* Effect.promise(() => waitUntil(() => exited, ENDS_WITHIN_MS))
      if (!exited) child.kill("SIGKILL")
      const code = yield* Effect.promise(() => child.exited)
      yield* Effect.promise(() => Promise.all([out.done, err.done]))
      return { ended: exited, code, out: out.text, err: err.text }
    })
  )

const pgSkip = postgresSkipReason()
describe.skipIf(pgSkip !== undefined)(skipName("the Postgres store stops answering mid-run", pgSkip), () => {
  it.live("the run ends on its own: one line naming the store and its deadline, exit 1, no stack", () => Effect.gen(function* () {
    expect(pg).toBeDefined()
    const r = yield* runWhileStoreFreezes()
    expect(r.ended).toBe(true)
    expect(r.err.trim().split("\n")).toHaveLength(1)
    expect(r.err).toMatch(/^loopguard: session run: could not save the reply: the session store did not answer within 2s \(store\.timeoutMs\)/)
    expect(r.out + r.err).not.toMatch(/\n\s+at /)
    expect(r.code).toBe(1)
  }), TIMEOUT)

  it.live("the first SIGTERM is heard: the run is cancelled with its report, exit 143", () => Effect.gen(function* () {
    expect(pg).toBeDefined()
    const r = yield* runWhileStoreFreezes("SIGTERM")
    expect(r.ended).toBe(true)
    expect(r.err).toContain("loopguard: SIGTERM: cancelling the run")
    expect(r.out).toMatch(/Cancelled/)
    expect(r.out + r.err).not.toMatch(/\n\s+at /)
    expect(r.code).toBe(143)
  }), TIMEOUT)
})
if ((pg === undefined || pg === "") && process.env["CI"] !== "true") {
  process.stderr.write("store-lost.test.ts: SKIPPED — TEST_POSTGRES_URL is not set (source .ci/postgres.sh to run it)\n")
}
