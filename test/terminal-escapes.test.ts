/**
 * Nothing a model, a store or piped input chose reaches the terminal as a command for it, judged
 * from the bytes a spawned `loopguard` writes: no ESC / BEL / C1 control, no bidi override or
 * isolate (U+202A-202E, U+2066-2069) — in a tool name the model picked, in streamed text, in
 * `sessions list | show | import` output, in piped `chat` input echoed back.
 */
import { textStream, toolCallStream } from "@loopguard/ai-sdk/testing"
import { describe, expect, test } from "bun:test"
import { makeSqliteStore } from "@loopguard/effect/store"
import { Effect } from "effect"
import { writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { cliEnv, scratch } from "./cli-fixture.js"

const ROOT = resolve(import.meta.dir, "..")
const TIMEOUT = 60_000
const { serve, workdir } = scratch("lg-escapes-")
/** A window retitle (OSC 0), a screen clear (CSI), a C1 CSI, and a right-to-left override. */
const HOSTILE = "\u001b]0;pwned\u0007\u001b[2J\u009b31m\u202eevil\u202c\u2066x\u2069"
const FORBIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/

const cli = async (args: ReadonlyArray<string>, stdin?: string) => {
  const child = Bun.spawn([process.execPath, "run", "packages/cli/src/main.ts", ...args], {
    cwd: ROOT,
    env: cliEnv(),
    stdin: stdin === undefined ? "ignore" : new Blob([stdin]),
    stdout: "pipe",
    stderr: "pipe"
  })
  const [code, out, err] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()])
  return { code, out, err, all: out + err }
}

const expectClean = (text: string) => {
  const hit = FORBIDDEN.exec(text)
  expect(hit === null ? null : `U+${hit[0].codePointAt(0)!.toString(16).padStart(4, "0")} at ${hit.index}: ${JSON.stringify(text.slice(Math.max(0, hit.index - 40), hit.index + 20))}`).toBeNull()
}

describe("escape sequences never reach the terminal", () => {
  test("run: a tool name and streamed text chosen by the model", async () => {
    const server = await serve([toolCallStream(`bash${HOSTILE}`, { command: "echo hi" }, { id: "c1" }), textStream(`done ${HOSTILE} really`)])
    const dir = workdir()
    const r = await cli(["run", "--base-url", server.baseURL, "--model", "m", "--prompt", "go", "--cwd", dir, "--session-dir", join(dir, "s")])
    expect(r.out).toContain("really")
    expectClean(r.all)
    const json = await cli(["run", "--base-url", (await serve([textStream(`x ${HOSTILE} y`)])).baseURL, "--model", "m", "--prompt", "go", "--cwd", dir, "--json"])
    expect(json.code).toBe(0)
    expectClean(json.all)
  }, TIMEOUT)

  test("sessions list, show and import: stored ids and text", async () => {
    const dir = workdir()
    const store = join(dir, "s")
    const server = await serve([textStream(`answer ${HOSTILE} end`), textStream("unused")])
    // `run --session` takes only clean ids (exit 2): a hostile one can still come from a library
    // user's store, so the session is copied there under one.
    expect((await cli(["run", "--base-url", server.baseURL, "--model", "m", "--prompt", "go", "--cwd", dir, "--session", `id${HOSTILE}`])).code).toBe(2)
    const run = await cli(["run", "--base-url", server.baseURL, "--model", "m", "--prompt", `ask ${HOSTILE}`, "--cwd", dir, "--session-dir", store, "--session", "plain"])
    expect(run.code).toBe(0)
    await Effect.runPromise(
      Effect.scoped(
        Effect.flatMap(makeSqliteStore(store), (st) =>
          Effect.flatMap(st.messages("plain"), (messages) => Effect.forEach(messages, (m) => st.append(`id${HOSTILE}`, m), { discard: true }))
        )
      )
    )
    const list = await cli(["sessions", "list", "--session-dir", store])
    expect(list.code).toBe(0)
    expect(list.out).toContain("id")
    expectClean(list.all)
    // JSON keeps the id exactly, escaped.
    const listJson = await cli(["sessions", "list", "--session-dir", store, "--json"])
    expectClean(listJson.all)
    expect(listJson.out.trim().split("\n").map((line) => JSON.parse(line).id)).toContain(`id${HOSTILE}`)
    const show = await cli(["sessions", "show", `id${HOSTILE}`, "--session-dir", store])
    expect(show.code).toBe(0)
    expect(show.out).toContain("answer")
    expectClean(show.all)
    const missing = await cli(["sessions", "show", `nope${HOSTILE}`, "--session-dir", store])
    expect(missing.code).toBe(2)
    expectClean(missing.all)
    const exported = await cli(["sessions", "export", `id${HOSTILE}`, "--session-dir", store])
    expect(exported.code).toBe(0)
    const file = join(dir, "t.jsonl")
    writeFileSync(file, exported.out)
    // The trace's own id holds escape sequences: refused as an id, and the refusal is clean too.
    const refused = await cli(["sessions", "import", file, "--session-dir", join(dir, "other")])
    expect(refused.code).toBe(2)
    expectClean(refused.all)
    const imported = await cli(["sessions", "import", file, "--session-dir", join(dir, "other"), "--as", "copy"])
    expect(imported.code).toBe(0)
    expect(imported.out).toContain("imported 2 messages")
    expectClean(imported.all)
  }, TIMEOUT)

  test("chat: piped input is echoed without its escape sequences", async () => {
    const server = await serve([textStream("fine")])
    const r = await cli(["chat", "--base-url", server.baseURL, "--model", "m", "--cwd", workdir()], `hello ${HOSTILE}\n/quit\n`)
    expect(r.out).toContain("hello")
    expectClean(r.all)
  }, TIMEOUT)
})
