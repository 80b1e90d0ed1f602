/**
 * `audit` redacts before it cuts: a finding that quotes a command shortened, and a line cut at
 * `input.maxLineBytes`, never show the first part of a key (fake keys below).
 */
import { afterAll, expect, test } from "bun:test"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const dir = mkdtempSync(join(tmpdir(), "loopguard-audit-cut-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const MAIN = join(import.meta.dir, "../main.ts")
const KEY = "sk-proj-PrObE10Ab1234567890GhIjKlMnOpQrStUv"
const PREFIX = "sk-proj-PrO"

const cli = (args: ReadonlyArray<string>, env: Record<string, string> = {}) => {
  const child = Bun.spawnSync([process.execPath, MAIN, ...args], { cwd: dir, stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1", ...env } })
  return { code: child.exitCode, out: child.stdout.toString() + child.stderr.toString() }
}

const jsonl = (records: ReadonlyArray<unknown>) => records.map((r) => JSON.stringify(r)).join("\n") + "\n"

test("a failing command quoted (and shortened) by a finding shows [REDACTED], never the key's prefix", () => {
  const command = `curl ${"a".repeat(54)} ghp_PROBE10ABCDEFGHIJKLMNOPQRSTUVWXYZ0123 ${KEY}`
  const steps = [0, 1, 2, 3, 4].flatMap((i) => [
    { type: "assistant", toolCalls: [{ id: `c${i}`, name: "bash", input: { command } }], finish: "tool-calls" },
    { type: "tool-result", id: `c${i}`, name: "bash", output: "fail", exitCode: 1 }
  ])
  writeFileSync(join(dir, "loop.jsonl"), jsonl([{ type: "session", id: "loop" }, { type: "user", text: "go" }, ...steps, { type: "assistant", text: "done", finish: "stop" }]))
  for (const args of [["audit", "loop.jsonl"], ["audit", "loop.jsonl", "--json"]]) {
    const audited = cli(args)
    expect(audited.out).toContain("bash")
    expect(audited.out).not.toContain(PREFIX)
  }
}, 60_000)

test("a line cut at input.maxLineBytes in the middle of a key: the page shows none of it", () => {
  writeFileSync(join(dir, "cut.jsonl"), jsonl([{ type: "session", id: "s" }, { type: "user", text: `${"x".repeat(77)}${KEY} tail` }, { type: "assistant", text: "ok", finish: "stop" }]))
  const audited = cli(["audit", "cut.jsonl", "--html", "cut.html"], { LOOPGUARD_INPUT_MAX_LINE_BYTES: "125" })
  expect(audited.code).toBe(0)
  const page = readFileSync(join(dir, "cut.html"), "utf8")
  // The cut fell in the run of token characters the key ends: the run is dropped whole.
  expect(page).toContain("only its first")
  expect(page).not.toContain(PREFIX)
}, 60_000)

test("calls that differ only in a secret-looking page token stay different calls to the detectors; the finding still reads [REDACTED]", () => {
  const token = (i: number) => `CiAKGjBpNjFlYzVhLTRkOTMtNDQ5Yy1iMjIxLWQ${"QWERTYUIOP"[i]}Mz${i}ZmY${i}EgBSAA`
  const page = (i: number, command: string) => [
    { type: "assistant", toolCalls: [{ id: `c${i}`, name: "run_shell_command", input: { command } }], finish: "tool-calls" },
    { type: "tool-result", id: `c${i}`, name: "run_shell_command", output: `{"items": [{"name": "obj-${i}"}], "nextPageToken": "${token(i + 1)}"}`, exitCode: 0 }
  ]
  const pages = [0, 1, 2, 3, 4, 5, 6, 7].flatMap((i) => page(i, `curl -s 'https://storage.example.org/storage/v1/b/logs/o?pageToken=${token(i)}'`))
  writeFileSync(join(dir, "pages.jsonl"), jsonl([{ type: "session", id: "pages" }, { type: "user", text: "list every object" }, ...pages, { type: "assistant", text: "done", finish: "stop" }]))
  const audited = cli(["audit", "pages.jsonl", "--json"])
  const result = JSON.parse(audited.out.split("\n").find((l) => l.startsWith("{"))!)
  expect(result.incidents.filter((i: { action: string }) => i.action !== "note")).toEqual([])
  // The same call made again, token and all, is still a repeat, quoted with the plain mark.
  const same = [0, 1, 2, 3, 4, 5, 6, 7].flatMap((i) => page(i, `curl -s 'https://storage.example.org/storage/v1/b/logs/o?pageToken=${token(0)}'`))
  writeFileSync(join(dir, "same.jsonl"), jsonl([{ type: "session", id: "same" }, { type: "user", text: "list every object" }, ...same]))
  const again = cli(["audit", "same.jsonl", "--json"])
  expect(again.out).toContain("[REDACTED]")
  expect(again.out).not.toContain("[REDACTED:")
  expect(again.out).not.toContain(token(0).slice(0, 12))
}, 60_000)

test("a URL query's key and signature and Cookie values never reach audit's output, its --json or its page (fake values)", () => {
  const values = ["QueryKeyPROBE14abcdef", "CookieValPROBE14abcdef", "SigValPROBE14abcdef"]
  writeFileSync(
    join(dir, "query.jsonl"),
    jsonl([
      { type: "session", id: "query" },
      { type: "user", text: `fetch https://maps.example.com/api?key=${values[0]}\nCookie: session=${values[1]}; other=1` },
      ...[0, 1, 2, 3].flatMap((i) => [
        { type: "assistant", toolCalls: [{ id: `c${i}`, name: "bash", input: { command: `curl -b 'Cookie: sid=${values[1]}' 'https://x/api?key=${values[0]}&sig=${values[2]}%3D'` } }], finish: "tool-calls" },
        { type: "tool-result", id: `c${i}`, name: "bash", output: `Set-Cookie: sid=${values[1]}; Path=/`, exitCode: 1 }
      ]),
      { type: "assistant", text: "done", finish: "stop" }
    ])
  )
  const outputs = [cli(["audit", "query.jsonl"]).out, cli(["audit", "query.jsonl", "--json"]).out]
  expect(cli(["audit", "query.jsonl", "--html", "query.html"]).code).toBe(0)
  outputs.push(readFileSync(join(dir, "query.html"), "utf8"))
  expect(outputs[1]).toContain("curl")
  for (const out of outputs) for (const v of values) expect(out).not.toContain(v)
}, 60_000)
