/**
 * `loopguard scan` as a user runs it (Bun.spawn from the repo root): the short-period rule's verdict keeps its
 * fields, and the long-period rule is reported beside it.
 */
import { afterAll, describe, expect, test } from "bun:test"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const ROOT = join(import.meta.dir, "..")

const scan = async (args: ReadonlyArray<string>, stdin: string, env: Record<string, string> = {}) => {
  const proc = Bun.spawn(["bun", "run", "packages/cli/src/main.ts", "scan", ...args], {
    cwd: ROOT,
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, ...env }
  })
  proc.stdin.write(stdin)
  await proc.stdin.end()
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { stdout, stderr, code }
}

const dir = mkdtempSync(join(tmpdir(), "lg-scan-config-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const PARAGRAPH = Array.from({ length: 43 }, (_, i) => ["check", "the", "parser", "output", "again", "before", "moving", "on", "to", "tests", "now"][i % 11] + (i % 5 === 0 ? "," : "")).join(" ") + ". "

describe("loopguard scan", () => {
  test("--jsonl: the short-period rule's repeat/token/period, plus long = null or {token, char}", async () => {
    const lines = [
      "Let me check the file again. ".repeat(25),
      "A healthy answer with no repetition at all.",
      "Intro. " + PARAGRAPH.repeat(50),
      "Result: " + "!".repeat(5_000)
    ]
    const r = await scan(["--jsonl"], lines.map((l) => JSON.stringify(l)).join("\n") + "\n")
    expect(r.code).toBe(0)
    const out = r.stdout.trim().split("\n").map((l) => JSON.parse(l))
    expect(out).toHaveLength(4)
    expect(out[0]).toMatchObject({ repeat: true, token: 119, period: 6 })
    expect(out[1]).toEqual({ repeat: false, token: null, period: null, long: null })
    expect(out[2].repeat).toBe(false)
    expect(out[2].long.char).toBeGreaterThan(7)
    expect(out[2].long.char).toBeLessThan(7 + 5 * PARAGRAPH.length)
    expect(lines[2]!.slice(0, out[2].long.char + 1).trim().split(/\s+/).length - 1).toBe(out[2].long.token)
    expect(out[3].repeat).toBe(false)
    expect(out[3].long).toEqual({ token: 1, char: out[3].long.char })
    expect(lines[3]![out[3].long.char]).toBe("!")
  }, 30_000)

  test("the repeat knobs come from the environment (and the config file) as for every command; a flag wins", async () => {
    const loop = "a b c d ".repeat(30)
    expect((await scan(["--jsonl"], JSON.stringify(loop) + "\n")).stdout).toContain('"repeat":true')
    expect((await scan(["--jsonl"], JSON.stringify(loop) + "\n", { LOOPGUARD_REPEAT_THRESHOLD: "50" })).stdout).toContain('"repeat":false')
    expect((await scan(["--jsonl", "--threshold", "20"], JSON.stringify(loop) + "\n", { LOOPGUARD_REPEAT_THRESHOLD: "50" })).stdout).toContain('"repeat":true')
    const bad = await scan([], "x", { LOOPGUARD_REPEAT_WINDOW: "NaN" })
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain("LOOPGUARD_REPEAT_WINDOW")
  }, 60_000)

  test("--config FILE sets repeat.* as for every other command (a flag wins); a bad file is one line, exit 2", async () => {
    const loop = JSON.stringify("a b c d ".repeat(30)) + "\n"
    writeFileSync(join(dir, "lax.jsonc"), `{ // a threshold the loop never reaches\n "repeat": { "threshold": 50 }, }`)
    const lax = await scan(["--jsonl", "--config", join(dir, "lax.jsonc")], loop)
    expect([lax.code, lax.stderr]).toEqual([0, ""])
    expect(lax.stdout).toContain('"repeat":false')
    expect((await scan(["--jsonl", "--config", join(dir, "lax.jsonc"), "--threshold", "20"], loop)).stdout).toContain('"repeat":true')
    const missing = await scan(["--config", join(dir, "missing.json")], "x")
    expect(missing.code).toBe(2)
    expect(missing.stderr.trim().split("\n")).toHaveLength(1)
    expect(missing.stderr).toContain(`config file ${join(dir, "missing.json")}`)
    // A section written twice: the first would be dropped without a word, so the file is refused.
    writeFileSync(join(dir, "twice.json"), `{"repeat": {"window": 300},\n "repeat": {"threshold": 5}}`)
    const twice = await scan(["--config", join(dir, "twice.json")], "x")
    expect([twice.code, twice.stdout]).toEqual([2, ""])
    expect(twice.stderr.trim()).toBe(`loopguard: ${join(dir, "twice.json")}:2:2: key repeat is written twice in one object (first on line 1); only the last would count: merge them into one`)
  }, 60_000)

  test("plain mode prints both rules", async () => {
    const r = await scan([], "Intro. " + PARAGRAPH.repeat(50))
    expect(r.code).toBe(0)
    expect(r.stdout).toContain("repeat: no")
    expect(r.stdout).toMatch(/long repeat: yes — tripped at token \d+ \(character \d+\)/)
  }, 30_000)

  test("a bad line is an error naming it, exit 2", async () => {
    const r = await scan(["--jsonl"], '"ok"\nnot json\n')
    expect(r.code).toBe(2)
    expect(r.stderr + r.stdout).toContain("stdin:2")
    // The error does not quote the line (the parser's own message did: its first word may be a secret).
    const secret = await scan(["--jsonl"], "Qm4rT8wZp2xx and more\n")
    expect(secret.code).toBe(2)
    expect(secret.stderr + secret.stdout).not.toContain("Qm4rT8wZp2xx")
  }, 30_000)

  test("--jsonl: a line over input.maxLineBytes is scanned on its kept beginning and named on stderr with its size", async () => {
    const loop = "Let me check the file again. ".repeat(200)
    const input = [JSON.stringify("fine"), JSON.stringify(loop), JSON.stringify("after")].join("\n") + "\n"
    const r = await scan(["--jsonl"], input, { LOOPGUARD_INPUT_MAX_LINE_BYTES: "2000" })
    expect(r.code).toBe(0)
    const out = r.stdout.trim().split("\n").map((l) => JSON.parse(l))
    expect(out).toHaveLength(3)
    // The loop trips within the kept 2000 bytes, at the same token as in the whole line.
    expect(out[1]).toMatchObject({ repeat: true, token: 119, period: 6 })
    expect(r.stderr).toContain(`stdin:2: line of ${loop.length + 2} bytes is longer than input.maxLineBytes: only its first 2000 bytes were scanned`)
    expect(out[2]).toEqual({ repeat: false, token: null, period: null, long: null })
  }, 30_000)
})
