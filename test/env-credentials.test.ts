/**
 * Credentials in the environment, found by their shape rather than a fixed list (`STRIPE_KEY`,
 * `PGPASSWORD`, a `DATABASE_URL` with a password), judged from outside: `loopguard run` as a
 * subprocess, a tool call that prints the environment and a file holding a key, the scripted
 * server's log (what the model was sent), the stored session and stdout.
 */
import { textStream, toolCallStream } from "@loopguard/ai-sdk/testing"
import { makeSqliteStore } from "@loopguard/effect/store"
import { expect, test } from "bun:test"
import { Effect } from "effect"
import { writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { cliEnv, scratch } from "./cli-fixture.js"

const ROOT = resolve(import.meta.dir, "..")
const { serve, workdir } = scratch("lg-envcred-")
const STRIPE = "sk_live_51Habcdefghijklmnop"
const PGPW = "pg-pass-word-4242"
const DBPW = "db-url-pass-7777"
const SECRETS = [STRIPE, PGPW, DBPW]

const run = async (extraEnv: Record<string, string>) => {
  const cwd = workdir()
  writeFileSync(join(cwd, "notes.txt"), `stripe: ${STRIPE}\n`)
  const server = await serve([toolCallStream("bash", { command: "env | sort; cat notes.txt; test -n \"$STRIPE_KEY\" && echo STRIPE_$((1+1))_PRESENT" }, { id: "c1" }), textStream("Looked.")])
  const store = join(cwd, "store")
  const child = Bun.spawn(
    [process.execPath, "run", "packages/cli/src/main.ts", "run", "--base-url", server.baseURL, "--model", "m", "--prompt", "show env", "--cwd", cwd, "--session-dir", store],
    {
      cwd: ROOT,
      env: { ...cliEnv(), STRIPE_KEY: STRIPE, PGPASSWORD: PGPW, DATABASE_URL: `postgres://app:${DBPW}@db.internal/app`, HARMLESS_SETTING: "visible-value", ...extraEnv },
      stdout: "pipe",
      stderr: "pipe"
    }
  )
  const [code, out, err] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()])
  const stored = JSON.stringify(await Effect.runPromise(Effect.scoped(Effect.flatMap(makeSqliteStore(store), (s) => s.messages("run")))))
  return { code, printed: out + err, sent: JSON.stringify(server.requests[1]), stored }
}

test("STRIPE_KEY, PGPASSWORD and DATABASE_URL reach neither the shell, nor the model, nor the store, nor the terminal", async () => {
  const r = await run({})
  expect(r.code).toBe(0)
  expect(r.sent).toContain("HARMLESS_SETTING=visible-value")
  expect(r.sent).not.toContain("STRIPE_KEY=")
  expect(r.sent).not.toContain("PGPASSWORD=")
  expect(r.sent).not.toContain("DATABASE_URL=")
  expect(r.sent).not.toContain("STRIPE_2_PRESENT")
  for (const secret of SECRETS) {
    expect(r.sent).not.toContain(secret)
    expect(r.stored).not.toContain(secret)
    expect(r.printed).not.toContain(secret)
  }
  // The key was in a file the command printed: redacted by value.
  expect(r.sent).toContain("stripe: [REDACTED]")
}, 60_000)

test("tools.envPass lets a named credential reach the shell; its value is still kept from the model", async () => {
  const r = await run({ LOOPGUARD_TOOLS_ENV_PASS: "STRIPE_KEY" })
  expect(r.code).toBe(0)
  expect(r.sent).toContain("STRIPE_2_PRESENT")
  expect(r.sent).not.toContain("PGPASSWORD=")
  for (const secret of SECRETS) expect(r.sent).not.toContain(secret)
}, 60_000)
