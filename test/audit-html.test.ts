/**
 * `loopguard audit` on agents' own logs, as a user runs it: formats detected or forced, pages
 * written for one run or a folder of runs, and the progress line only on a terminal.
 */
import { describe, expect, test } from "bun:test"
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { cliEnv, scratch } from "./cli-fixture.js"

const ROOT = resolve(import.meta.dir, "..")
const FIXTURES = join(ROOT, "packages/core/src/trace/formats/fixtures")
const { workdir } = scratch("loopguard-audit-html-")

const run = async (args: ReadonlyArray<string>) => {
  const proc = Bun.spawn(["bun", "run", "packages/cli/src/main.ts", ...args], { cwd: ROOT, stdout: "pipe", stderr: "pipe", env: cliEnv() })
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { stdout, stderr, code }
}

describe("audit of agents' logs from the command line", () => {
  test("formats are detected; --json keeps its keys; notes go to stderr; a forced format is used", async () => {
    const r = await run(["audit", "--json", join(FIXTURES, "codex.jsonl"), join(FIXTURES, "opencode.json")])
    expect(r.code).toBe(0)
    const objects = r.stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(objects.map((o) => Object.keys(o))).toEqual([["file", "steps", "incidents", "exit"], ["file", "steps", "incidents", "exit"]])
    expect(objects.map((o) => o["steps"])).toEqual([6, 6])
    expect(r.stderr).toContain(`codex.jsonl:20: response item "image_generation_call" has no trace v1 counterpart; skipped`)
    const forced = await run(["audit", "--json", "--format", "trace", join(FIXTURES, "codex.jsonl")])
    expect(forced.code).toBe(1)
    const bad = await run(["audit", "--format", "cursor", join(FIXTURES, "codex.jsonl")])
    expect(bad.code).toBe(2)
  }, 120_000)

  test("--html OUT writes one self-contained page for one run", async () => {
    const out = join(workdir(), "page", "run.html")
    const r = await run(["audit", join(FIXTURES, "claude-code.jsonl"), "--html", out])
    expect(r.code).toBe(0)
    const html = readFileSync(out, "utf8")
    expect(html).toStartWith("<!doctype html>")
    expect(html).toContain(`<script type="application/json" id="run-data">`)
    expect(html).not.toMatch(/<(link|img|iframe)\b|\ssrc=/)
    const data = JSON.parse(html.slice(html.indexOf(`id="run-data">`) + 14, html.indexOf("</script>")).replace(/\\u003c/g, "<")) as { steps: Array<unknown>; incidents: Array<unknown> }
    expect(data.steps).toHaveLength(6)
    expect(data.incidents.length).toBeGreaterThan(3)
  }, 120_000)

  test("no secret from the log reaches the page, in the steps or in the incidents' details", async () => {
    const dir = workdir()
    const key = "sk-proj-Q7vXk2mN9pLr4sT8wYz1aB3cD5eF6gH0"
    const lines: Array<object> = [{ type: "user", text: `use the key ${key}` }]
    for (let i = 0; i < 4; i++) {
      lines.push({ type: "assistant", toolCalls: [{ id: `c${i}`, name: "bash", input: { command: `curl -H "x-api-key: ${key}" http://127.0.0.1:9/v1` } }] })
      lines.push({ type: "tool-result", id: `c${i}`, name: "bash", output: `curl: (7) Failed to connect (key ${key})`, exitCode: 7 })
    }
    writeFileSync(join(dir, "leak.jsonl"), lines.map((l) => JSON.stringify(l)).join("\n"))
    const out = join(dir, "leak.html")
    const r = await run(["audit", join(dir, "leak.jsonl"), "--html", out])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain("repeated-action")
    const html = readFileSync(out, "utf8")
    expect(html).toContain("[REDACTED]")
    expect(html).not.toContain(key)
  }, 120_000)

  test("a folder of logs: a folder of pages and an index with a row per run; a bad OUT is exit 2", async () => {
    const out = join(workdir(), "pages")
    const r = await run(["audit", FIXTURES, "--html", out])
    expect(r.code).toBe(0)
    const pages = readdirSync(out).sort()
    expect(pages).toEqual(["claude-code.html", "codex.html", "gemini-checkpoint.html", "gemini-log.html", "gemini-session.html", "index.html", "mini-swe-agent.traj.html", "opencode.html", "pi.html", "qwen-code.html", "swe-agent.html"])
    const index = readFileSync(join(out, "index.html"), "utf8")
    expect(index.match(/<tr>/g)).toHaveLength(11)
    for (const p of pages.filter((p) => p !== "index.html")) expect(index).toContain(`href="${p}"`)
    const file = join(workdir(), "file")
    writeFileSync(file, "x")
    const blocked = await run(["audit", join(FIXTURES, "codex.jsonl"), "--html", join(file, "sub", "p.html")])
    expect(blocked.code).toBe(2)
    expect(blocked.stderr).toContain("--html")
    expect(existsSync(join(file, "sub"))).toBe(false)
  }, 120_000)

  test("sessions import reads an agent's log; sessions show --html writes the stored session as a page", async () => {
    const dir = workdir()
    const imported = await run(["sessions", "import", join(FIXTURES, "opencode.json"), "--session-dir", dir])
    expect(imported.code).toBe(0)
    expect(imported.stdout).toContain("as session ses_6a1f0c2e9ffeR1")
    expect(imported.stderr).toContain(`opencode.json:56: part "canvas" has no trace v1 counterpart; skipped`)
    const out = join(dir, "session.html")
    const shown = await run(["sessions", "show", "ses_6a1f0c2e9ffeR1", "--session-dir", dir, "--html", out])
    expect(shown.code).toBe(0)
    expect(shown.stdout).toMatch(/^wrote .*session\.html: 6 steps, \d+ incidents/)
    const html = readFileSync(out, "utf8")
    expect(html).toContain("stored session")
    expect(html).toContain("repeated-action")
    const missing = await run(["sessions", "show", "nope", "--session-dir", dir, "--html", out])
    expect(missing.code).toBe(2)
  }, 120_000)

  test("a progress line on a terminal's stderr, none with --json or without a terminal", async () => {
    const cmd = (json: boolean) => `bun run packages/cli/src/main.ts audit ${json ? "--json " : ""}${join(FIXTURES, "codex.jsonl")} ${join(FIXTURES, "opencode.json")}`
    const tty = async (json: boolean) => {
      const proc = Bun.spawn(["script", "-qec", cmd(json), "/dev/null"], { cwd: ROOT, stdout: "pipe", stderr: "pipe", env: cliEnv() })
      const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited])
      return { stdout, code }
    }
    const human = await tty(false)
    expect(human.code).toBe(0)
    expect(human.stdout).toMatch(/\r\x1b\[2Kaudit: 0\/2 files, 0 steps, \d+ steps\/s/)
    expect(human.stdout).toContain("audited 2 files")
    expect((await tty(true)).stdout).not.toContain("audit: 0/2 files")
    // Without a terminal (stderr a pipe), nothing.
    expect((await run(["audit", join(FIXTURES, "codex.jsonl")])).stderr).not.toContain("audit: ")
  }, 120_000)
})
