/** The seams examples run as a user would run them (a child `bun` process) and exit 0. */
import { expect, test } from "bun:test"
import { join } from "node:path"

const run = async (file: string) => {
  const child = Bun.spawn([process.execPath, join(import.meta.dir, "..", "examples", file)], { stdout: "pipe", stderr: "pipe" })
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  return { out, err, code }
}

test(
  "examples/effect-two-providers.ts: each provider retries under its own budget",
  async () => {
    const r = await run("effect-two-providers.ts")
    expect(r.err).toBe("")
    expect(r.out).toContain("OK: each provider retried under its own budget.")
    expect(r.code).toBe(0)
  },
  30_000
)

test(
  "examples/ai-sdk-middleware.ts: the loop is cut, the healthy reply passes",
  async () => {
    const r = await run("ai-sdk-middleware.ts")
    expect(r.err).toBe("")
    expect(r.out).toContain("server saw \"client-closed\"")
    expect(r.code).toBe(0)
  },
  30_000
)
