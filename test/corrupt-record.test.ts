/**
 * One damaged record in a stored session, judged from outside: `sessions show` and a resumed
 * `loopguard run` still work with what parses, and say which record was dropped and why (the
 * database file is damaged here with raw SQL, as a disk error or a foreign writer would).
 */
import { textStream } from "@loopguard/ai-sdk/testing"
import { openSqlClient } from "@loopguard/effect/store"
import { expect, test } from "bun:test"
import { Effect } from "effect"
import { join, resolve } from "node:path"
import { cliEnv, scratch } from "./cli-fixture.js"

const ROOT = resolve(import.meta.dir, "..")
const { serve, workdir } = scratch("lg-corrupt-")

const cli = async (args: ReadonlyArray<string>) => {
  const child = Bun.spawn([process.execPath, "run", "packages/cli/src/main.ts", ...args], { cwd: ROOT, env: cliEnv(), stdout: "pipe", stderr: "pipe" })
  const [code, out, err] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()])
  return { code, out, err }
}

test("a session with one truncated record still shows and resumes; the record and the reason are named", async () => {
  const dir = workdir()
  const store = join(dir, "s")
  const server = await serve([textStream("first answer"), textStream("second answer"), textStream("third answer")])
  const turn = (prompt: string) => cli(["run", "--base-url", server.baseURL, "--model", "m", "--prompt", prompt, "--cwd", dir, "--session-dir", store, "--session", "c"])
  expect((await turn("one")).code).toBe(0)
  expect((await turn("two")).code).toBe(0)
  // The first reply's body is cut in the middle.
  await Effect.runPromise(
    Effect.scoped(Effect.flatMap(openSqlClient(store), ({ client }) => client.unsafe(`UPDATE loopguard_messages SET body = substr(body, 1, 30) WHERE seq = 1`)))
  )
  const show = await cli(["sessions", "show", "c", "--session-dir", store])
  expect(show.err).toBe("")
  expect(show.code).toBe(0)
  expect(show.out).toMatch(/record #1 \(c:a1\) could not be read and was left out: not valid JSON/)
  expect(show.out).toContain("second answer")
  const resumed = await turn("three")
  expect(resumed.err).toBe("")
  expect(resumed.code).toBe(0)
  const sent = JSON.stringify(server.requests.at(-1)?.body)
  expect(sent).toContain("second answer")
  expect(sent).toContain("three")
}, 60_000)
