/**
 * A reply's text is saved while it streams (stream.persistIntervalMs), so `kill -9` in the middle
 * of a long answer loses at most the last interval of it. Judged from outside: `loopguard run` as
 * a subprocess on a SQLite folder, the scripted server going silent mid-reply, SIGKILL, then
 * `sessions show` and a resumed run.
 */
import { textStream } from "@loopguard/ai-sdk/testing"
import { expect, test } from "bun:test"
import { join, resolve } from "node:path"
import { cliEnv, liveText, scratch, waitUntil } from "./cli-fixture.js"

const ROOT = resolve(import.meta.dir, "..")
const { serve, workdir } = scratch("lg-partial-")

test("kill -9 mid-reply: the text streamed so far is in the store, marked interrupted; a resumed run asks again", async () => {
  const words = Array.from({ length: 40 }, (_, i) => `word${i}`)
  const server = await serve((_body: unknown, i: number) =>
    i === 0 ? { type: "stream", chunks: words.map((w) => ({ text: `${w} ` })), chunkDelayMs: 20, stallAfterChunks: 40, stallMs: 60_000 } : textStream("the whole answer")
  )
  const dir = workdir()
  const store = join(dir, "s")
  const args = ["--base-url", server.baseURL, "--model", "m", "--cwd", dir, "--session-dir", store, "--session", "p"]
  const child = Bun.spawn([process.execPath, "run", "packages/cli/src/main.ts", "run", ...args, "--prompt", "tell me"], {
    cwd: ROOT,
    env: { ...cliEnv(), LOOPGUARD_STREAM_PERSIST_INTERVAL_MS: "200" },
    stdout: "pipe",
    stderr: "pipe"
  })
  const out = liveText(child.stdout)
  // The whole reply has streamed and the server went silent: give the saver a few intervals.
  await waitUntil(() => out.text.includes("word39"))
  await Bun.sleep(1_500)
  child.kill("SIGKILL")
  await child.exited
  const cli = async (a: ReadonlyArray<string>) => {
    const p = Bun.spawn([process.execPath, "run", "packages/cli/src/main.ts", ...a], { cwd: ROOT, env: cliEnv(), stdout: "pipe", stderr: "pipe" })
    const [code, stdout] = await Promise.all([p.exited, new Response(p.stdout).text()])
    return { code, stdout }
  }
  const show = await cli(["sessions", "show", "p", "--session-dir", store])
  expect(show.code).toBe(0)
  expect(show.stdout).toContain("word0 word1 word2")
  expect(show.stdout).toContain("interrupted")
  const resumed = await cli(["run", ...args])
  expect(resumed.code).toBe(0)
  expect(resumed.stdout).toContain("the whole answer")
}, 90_000)
