/**
 * The streamed audit (two line-by-line reads, a windowed store) against the whole-text audit it
 * replaced, and what only streaming has — lines cut at `input.maxLineBytes` and tool results later
 * than the look-ahead. The same comparison over every development trace: audit-file.dev-traces.test.ts.
 */
import { afterAll, describe, expect, test } from "bun:test"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { auditConfig } from "./audit-config.js"
import { auditFile } from "./audit-file.js"
import { auditTrace, type AuditResult } from "./audit-trace.js"
import { MAX_LISTED_PROBLEMS } from "./check-trace.js"
import { RESULT_LOOKAHEAD } from "./step-feed.js"

const dir = mkdtempSync(join(tmpdir(), "loopguard-audit-stream-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const write = (name: string, lines: ReadonlyArray<object>): string => {
  const path = join(dir, name)
  writeFileSync(path, lines.map((l) => JSON.stringify(l)).join("\n") + "\n")
  return path
}

const audited = (r: AuditResult) => {
  if (r._tag !== "audited") throw new Error(`expected an audit, got ${r.errors.join("; ")}`)
  return r
}

const call = (i: number, command: string) => ({ type: "assistant", text: `step ${i}`, toolCalls: [{ id: `c${i}`, name: "bash", input: { command } }], finish: "tool-calls" })
const result = (i: number, output: string) => ({ type: "tool-result", id: `c${i}`, name: "bash", output, exitCode: 0 })

describe("audit of a file, streamed", () => {
  test(
    "a 700-step trace audits the same through the windowed store as through the whole-history store",
    async () => {
      // Long enough that the store drops replies (its window is a few hundred). From step 300 on,
      // every read repeats one made 300 steps before: only a spin detector that carries what left
      // the window sees that.
      const lines: Array<object> = [{ type: "user", text: "fix it" }]
      const letters = (k: number) => String.fromCharCode(97 + (k % 26), 97 + Math.floor(k / 26))
      for (let i = 0; i < 700; i++) lines.push(call(i, `cat src/f${i % 300}.ts`), result(i, `contents ${letters(i % 300)}`))
      const path = write("long.jsonl", lines)
      const text = lines.map((l) => JSON.stringify(l)).join("\n")
      const [streamed, whole] = await Effect.runPromise(Effect.all([auditFile(path), auditTrace(path, text)]))
      expect(audited(whole).incidents.some((i) => i.detector === "no-progress-spin" && i.step > 300)).toBe(true)
      expect(streamed).toEqual(whole)
    },
    60_000
  )

  test("a line over input.maxLineBytes keeps its beginning, and a note names file:line and its size", async () => {
    const big = "x".repeat(300_000)
    const path = write("cut.jsonl", [{ type: "user", text: "go" }, call(0, "ls"), result(0, big), { type: "assistant", text: "done", finish: "stop" }])
    const config = { ...auditConfig(), input: { maxLineBytes: 100_000 } }
    const r = audited(await Effect.runPromise(auditFile(path, config)))
    expect(r.steps).toBe(2)
    expect(r.notes).toHaveLength(1)
    expect(r.notes[0]).toMatch(new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:3: line of 300\\d{3} bytes is longer than input.maxLineBytes: only its first 100000 bytes were read`))
    // Uncut, the same trace audits with no note.
    expect(audited(await Effect.runPromise(auditFile(path))).notes).toEqual([])
  })

  test("a tool result more than the look-ahead of steps after its call is an orphan, named by its line", async () => {
    const lines: Array<object> = [{ type: "user", text: "go" }]
    for (let i = 0; i <= RESULT_LOOKAHEAD + 1; i++) lines.push(call(i, `echo ${i}`), ...(i === 0 ? [] : [result(i, `${i}`)]))
    lines.push(result(0, "late"))
    const path = write("late.jsonl", lines)
    const r = audited(await Effect.runPromise(auditFile(path)))
    expect(r.notes).toEqual([`${path}:2: tool call "c0" has no tool result`, `${path}:${lines.length}: tool result "c0" matches no earlier unanswered tool call`])
  })

  test("an unreadable file and a bad line fail the file, naming the reason and file:line", async () => {
    const missing = await Effect.runPromise(auditFile(join(dir, "nope.jsonl")))
    expect(missing).toMatchObject({ _tag: "failed", errors: [expect.stringMatching(/nope\.jsonl: cannot read: .*ENOENT/)] })
    const bad = join(dir, "bad.jsonl")
    writeFileSync(bad, `{"type":"user","text":"go"}\n{"type":"assistant",\n{"type":"nope"}\n`)
    const r = await Effect.runPromise(auditFile(bad))
    expect(r).toMatchObject({ _tag: "failed", errors: [expect.stringMatching(/bad\.jsonl:2: bad JSON/), `${bad}:3: unknown type "nope" (expected session, user, assistant, tool-result)`] })
  })

  test("a file that is not a trace lists its first problems and counts the rest", async () => {
    const path = join(dir, "log.txt")
    writeFileSync(path, Array.from({ length: MAX_LISTED_PROBLEMS + 500 }, (_, i) => `12:00:${i} log line ${i}`).join("\n"))
    const r = await Effect.runPromise(auditFile(path))
    if (r._tag !== "failed") throw new Error("expected a failed file")
    expect(r.errors).toHaveLength(MAX_LISTED_PROBLEMS + 1)
    expect(r.errors[0]).toStartWith(`${path}:1: bad JSON`)
    expect(r.errors.at(-1)).toBe(`${path}:${MAX_LISTED_PROBLEMS}: and 500 more problems after this line, not listed`)
  })
})
