/**
 * `loopguard audit` end to end: small hand-made traces in a temp dir. The detector checks run the
 * audit in-process (the same `auditFiles` and JSON formatter the command uses: a subprocess would
 * add only start-up time on a loaded machine); the CLI contract checks (exit status, failed files,
 * the printed formats) run the command as a user would (Bun.spawn from the repo root).
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { auditConfig, auditFiles } from "@loopguard/effect/audit"
import { Effect } from "effect"
import { toJsonLine } from "../packages/cli/src/audit/format.js"

// Each test starts the CLI as a subprocess: a loaded machine can take seconds to boot it.
setDefaultTimeout(30_000)

const ROOT = resolve(import.meta.dir, "..")
const DEV_TRACES = `${import.meta.dir}/../../shared/traces`

interface JsonIncident {
  readonly step: number
  readonly detector: string
  readonly action: string
  readonly detail: Record<string, unknown>
}
interface JsonAudited {
  readonly file: string
  readonly steps: number
  readonly incidents: ReadonlyArray<JsonIncident>
  readonly exit: { readonly reason: string; readonly step: number } | null
}
interface JsonFailed {
  readonly file: string
  readonly error: string
  readonly errors: ReadonlyArray<string>
}

const audit = async (...args: ReadonlyArray<string>) => auditWithEnv({}, ...args)

const auditWithEnv = async (env: Record<string, string>, ...args: ReadonlyArray<string>) => {
  const proc = Bun.spawn(["bun", "run", "packages/cli/src/main.ts", "audit", ...args], { cwd: ROOT, stdout: "pipe", stderr: "pipe", env: { ...process.env, ...env } })
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { stdout, stderr, code }
}

const auditJson = async (...files: ReadonlyArray<string>) => {
  const r = await audit("--json", ...files)
  const lines = r.stdout.split("\n").filter((l) => l.trim() !== "")
  return { ...r, objects: lines.map((l) => JSON.parse(l) as JsonAudited | JsonFailed) }
}

/** The audit as the command runs it, in this process: one JSON line per file, exit 1 when any file failed. */
const auditInProcess = async (...files: ReadonlyArray<string>) => {
  const results = await Effect.runPromise(auditFiles(files, auditConfig()))
  const objects = results.map((r) => JSON.parse(toJsonLine(r)) as JsonAudited | JsonFailed)
  return { objects, code: results.some((r) => r._tag === "failed") ? 1 : 0 }
}

let dir = ""
const write = (name: string, lines: ReadonlyArray<object | string>): string => {
  const path = join(dir, name)
  writeFileSync(path, lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n") + "\n")
  return path
}

const call = (id: string, command: string) => ({ id, name: "bash", input: { command } })
const step = (text: string, calls: ReadonlyArray<ReturnType<typeof call>> = []) =>
  calls.length > 0 ? { type: "assistant", text, toolCalls: calls, finish: "tool-calls" } : { type: "assistant", text, finish: "stop" }
const result = (id: string, output: string, exitCode: number) => ({ type: "tool-result", id, name: "bash", output, exitCode })

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "loopguard-audit-"))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const only = (o: JsonAudited | JsonFailed): JsonAudited => {
  if ("error" in o) throw new Error(`expected an audited file, got: ${o.error}`)
  return o
}
const at = (o: JsonAudited, detector: string) => o.incidents.filter((i) => i.detector === detector)

describe("loopguard audit", () => {
  test("a device (/dev/zero never ends) is a failed run naming it, not a wait forever", async () => {
    const r = await auditJson("/dev/zero")
    expect(r.code).toBe(1)
    expect(r.objects.map((o) => [o.file, "error" in o ? o.error : null])).toEqual([["/dev/zero", "/dev/zero: a device, not a log file"]])
  })

  test("the same reply three times: text-loop mild at the third step, not before", async () => {
    const file = write("text-loop.jsonl", [
      { type: "session", id: "t1", model: "test/model" },
      { type: "user", text: "list the files" },
      step("Let me look at the directory first.", [call("c0", "ls")]),
      result("c0", "a.txt", 0),
      step("Let me look at the directory first.", [call("c0", "ls")]),
      result("c0", "a.txt", 0),
      step("Let me look at the directory first.", [call("c0", "ls")]),
      result("c0", "a.txt", 0),
      step("There is one file, a.txt.")
    ])
    const { objects, code } = await auditInProcess(file)
    expect(code).toBe(0)
    const o = only(objects[0]!)
    expect(o.steps).toBe(4)
    expect(at(o, "text-loop").map((i) => [i.step, i.action])).toEqual([[2, "mild"]])
    expect(o.exit).toEqual({ reason: "final", step: 3 })
  }, 30_000)

  test("an A B A B cycle is an action cycle at the fourth replay, and repeated-action stays silent", async () => {
    const cmds = ["cat a.py", "python run.py", "cat a.py", "python run.py", "cat a.py", "python run.py", "cat a.py"]
    const file = write("cycle.jsonl", [
      { type: "user", text: "fix it" },
      ...cmds.flatMap((c, i) => [step(`Step ${i}: checking again.`, [call(`k${i}`, c)]), result(`k${i}`, `out ${i % 2}`, 0)]),
      step("Done.")
    ])
    const o = only((await auditInProcess(file)).objects[0]!)
    expect(at(o, "action-cycle")[0]).toMatchObject({ step: 5, action: "note", detail: { period: 2, replays: 4 } })
    expect(at(o, "repeated-action")).toEqual([])
  }, 30_000)

  test("a repeated action is filed under the step that completed the repeat", async () => {
    const file = write("repeated-action.jsonl", [
      { type: "user", text: "find the bug" },
      step("Reading the config.", [call("c1", "cat config.json")]),
      result("c1", "{}", 0),
      step("Reading it again to be sure.", [call("c2", "cat config.json")]),
      result("c2", "{}", 0),
      step("One more look.", [call("c3", "cat config.json")]),
      result("c3", "{}", 0),
      step("Now something else.", [call("c4", "ls src")]),
      result("c4", "main.ts", 0),
      step("Done.")
    ])
    const o = only((await auditInProcess(file)).objects[0]!)
    const actions = at(o, "repeated-action")
    expect(actions.map((i) => i.step)).toEqual([2])
    expect(actions[0]!.detail).toMatchObject({ count: 3 })
    expect(String(actions[0]!.detail["signature"])).toContain("cat config.json")
    // The same streak seen as a crop range, named by trace steps.
    expect(at(o, "streak-crop")[0]).toMatchObject({ step: 2, action: "detect", detail: { fromStep: 0, toStep: 2, replies: 3 } })
    // Nothing repeated before the third call.
    expect(o.incidents.filter((i) => i.step < 2)).toEqual([])
  }, 30_000)

  test("a trailing repeat (the trace ends on it) is still reported", async () => {
    const file = write("tail-repeat.jsonl", [
      { type: "user", text: "go" },
      step("a", [call("c1", "git status")]),
      result("c1", "clean", 0),
      step("b", [call("c2", "git status")]),
      result("c2", "clean", 0),
      step("c", [call("c3", "git status")]),
      result("c3", "clean", 0)
    ])
    const o = only((await auditInProcess(file)).objects[0]!)
    expect(at(o, "repeated-action").map((i) => i.step)).toEqual([2])
  }, 30_000)

  test("the same failing command: bash-retry notes the third failure, the fourth would pause (the loop went on after the note)", async () => {
    const file = write("bash-retry.jsonl", [
      { type: "user", text: "build it" },
      step("Building.", [call("c1", "make build")]),
      result("c1", "error: missing header", 2),
      step("Trying the build again.", [call("c2", "make build")]),
      result("c2", "error: missing header", 2),
      step("Once more.", [call("c3", "make build")]),
      result("c3", "error: missing header", 2),
      step("And again.", [call("c4", "make build")]),
      result("c4", "error: missing header", 2),
      step("I could not build it.")
    ])
    const o = only((await auditInProcess(file)).objects[0]!)
    const retry = at(o, "bash-retry")
    expect(retry.map((i) => [i.step, i.action])).toEqual([[2, "note"], [3, "pause"]])
    expect(retry[1]!.detail).toMatchObject({ kind: "bash_retry", evidence: { count: 4 } })
    expect(o.exit).toEqual({ reason: "try_best_paused", step: 3 })
  }, 30_000)

  test("one event seen by many detectors is one timeline entry and one lead in --json", async () => {
    const file = write("one-event.jsonl", [
      { type: "user", text: "fix the tests" },
      ...[1, 2, 3, 4].flatMap((i) => [step("Starting the stack again.", [call(`t${i}`, "docker compose up -d")]), result(`t${i}`, "Error: port 5432 is already allocated", 1)]),
      step("It still fails.")
    ])
    const human = await audit(file)
    const stepTwo = human.stdout.split("\n").filter((l) => /^ {2}step {4}2 /.test(l))
    expect(stepTwo).toHaveLength(1)
    expect(human.stdout).toContain("also seen by: ")
    expect(human.stdout).toMatch(/\d+ events? \(\d+ detector findings: /)
    const { objects } = await auditJson(file)
    const o = objects[0] as unknown as { incidents: ReadonlyArray<JsonIncident & { lead: boolean }> }
    expect(o.incidents.filter((i) => i.step === 2).length).toBeGreaterThan(3)
    const leadsBy = new Map<number, number>()
    for (const i of o.incidents) if (i.lead) leadsBy.set(i.step, (leadsBy.get(i.step) ?? 0) + 1)
    expect([...new Set(o.incidents.map((i) => i.step))].map((s) => leadsBy.get(s))).toEqual([...new Set(o.incidents.map((i) => i.step))].map(() => 1))
    // The event's lead is what does the most (the breaker's degrade), not a note about it. (A failing
    // test run would be no storm: its failures are the answer it was run for.)
    expect(o.incidents.find((i) => i.step === 2 && i.lead)).toMatchObject({ detector: "breaker", action: "degrade" })
  }, 30_000)

  test("a generation that repeats itself is cut in the stream at its own step", async () => {
    const file = write("text-repeat.jsonl", [
      { type: "user", text: "go" },
      step("Fine so far.", [call("c0", "ls")]),
      result("c0", "a", 0),
      step("I need to check the parser output again now. ".repeat(25), [call("c0", "cat a")]),
      result("c0", "A", 0),
      step("Done.")
    ])
    const o = only((await auditInProcess(file)).objects[0]!)
    const cut = at(o, "text-repeat").filter((i) => i.action === "cut")
    expect(cut.map((i) => i.step)).toEqual([1])
    expect(cut[0]!.detail).toMatchObject({ period: 9 })
  }, 30_000)

  test("a runaway paragraph (too long for the short-period rule) is cut by the long-period rule; every incident carries its kind", async () => {
    const paragraph = "The parser drops the closing tag when the nested element holds an attribute, so I will rewrite the scanner loop, rerun the fixture tests and compare the printed tree with the expected one before touching the renderer. "
    const file = write("long-repeat.jsonl", [
      { type: "user", text: "go" },
      step("Fine so far.", [call("c0", "ls")]),
      result("c0", "a", 0),
      step(paragraph.repeat(60), [call("c0", "cat a")]),
      result("c0", "A", 0),
      step("Done.")
    ])
    const o = only((await auditJson(file)).objects[0]!)
    const cut = at(o, "text-repeat").filter((i) => i.action === "cut")
    expect(cut.map((i) => i.step)).toEqual([1])
    expect(cut[0]!.detail).toMatchObject({ rule: "long", view: "exact" })
    expect(o.incidents.length).toBeGreaterThan(0)
    for (const i of o.incidents) expect(["loop", "stall", "recovery", "fault"]).toContain(String((i as { kind?: string }).kind))
    expect((cut[0] as { kind?: string }).kind).toBe("loop")
  }, 30_000)

  test("a doom loop inside one reply is reported and the replay goes on to the later steps", async () => {
    const file = write("doom.jsonl", [
      { type: "user", text: "go" },
      step("Checking.", [call("a", "ls"), call("b", "ls"), call("c", "ls")]),
      result("a", "x", 0),
      result("b", "x", 0),
      result("c", "x", 0),
      step("Again.", [call("d", "make"), call("e", "make"), call("f", "make")]),
      result("d", "fail", 1),
      result("e", "fail", 1),
      result("f", "fail", 1),
      step("Done.")
    ])
    const o = only((await auditInProcess(file)).objects[0]!)
    expect(at(o, "doom-loop").map((i) => i.step)).toEqual([0, 1])
    expect(o.exit).toEqual({ reason: "doom_loop", step: 0 })
  }, 30_000)

  test("a bad line fails its file with file:line while the other file is still audited; exit status 1", async () => {
    const bad = write("bad.jsonl", [{ type: "user", text: "go" }, step("fine"), "{not json", { type: "assistant", finish: "sideways" }])
    const good = write("good.jsonl", [{ type: "user", text: "go" }, step("All done.")])
    const { objects, code, stderr } = await auditJson(bad, good)
    expect(code).toBe(1)
    expect(stderr).toContain("1 of 2 files failed")
    expect(objects).toHaveLength(2)
    const failed = objects[0] as JsonFailed
    expect(failed.file).toBe(bad)
    expect(failed.error).toStartWith(`${bad}:3: `)
    expect(failed.errors).toHaveLength(2)
    expect(failed.errors[1]).toStartWith(`${bad}:4: `)
    expect(only(objects[1]!)).toEqual({ file: good, steps: 1, incidents: [], exit: { reason: "final", step: 0 } })

    const human = await audit(bad, good)
    expect(human.code).toBe(1)
    expect(human.stdout).toContain(`${bad}:3: bad JSON`)
    expect(human.stdout).toContain(`${good}: 1 steps, no incidents, first exit final at step 0`)
    expect(human.stdout).toContain("audited 2 files: 1 ok, 1 failed")
  }, 30_000)

  test("a missing file is a failed file, not a crash", async () => {
    const missing = join(dir, "nope.jsonl")
    const { objects, code } = await auditJson(missing)
    expect(code).toBe(1)
    expect((objects[0] as JsonFailed).error).toStartWith(`${missing}: cannot read`)
  }, 30_000)

  test("an empty file is said to be empty; a database piped in is a failed run that says to give its path", async () => {
    const empty = join(dir, "empty.jsonl")
    writeFileSync(empty, "")
    const human = await audit(empty)
    expect([human.code, human.stdout.includes("the file is empty")]).toEqual([0, true])
    const db = join(dir, "piped.db")
    writeFileSync(db, Buffer.concat([Buffer.from("SQLite format 3\0", "latin1"), Buffer.alloc(4080)]))
    const r = await auditInProcess(db)
    expect(r.code).toBe(1)
    expect((r.objects[0] as JsonFailed).error).toContain("a SQLite database (OpenCode's or Kilo's log?) cannot be read as a text log; give its path")
  }, 30_000)

  test("a line over input.maxLineBytes is audited on its kept beginning; --json names file:line and the size on stderr", async () => {
    const file = write("long-line.jsonl", [{ type: "user", text: "go" }, step("x", [call("c1", "cat big.log")]), result("c1", "log line\n".repeat(40_000), 0), step("done")])
    const r = await auditWithEnv({ LOOPGUARD_INPUT_MAX_LINE_BYTES: "100000" }, "--json", file)
    expect(r.code).toBe(0)
    const o = JSON.parse(r.stdout.trim()) as JsonAudited
    expect(Object.keys(o).sort()).toEqual(["exit", "file", "incidents", "steps"])
    expect(o.steps).toBe(2)
    expect(r.stderr).toMatch(new RegExp(`note: .*long-line\\.jsonl:3: line of \\d+ bytes is longer than input\\.maxLineBytes: only its first 100000 bytes were read`))
  }, 30_000)

  test("- audits a trace piped on stdin, named stdin, beside the files given; the spooled copy is removed", async () => {
    const lines = [{ type: "user", text: "go" }, step("x", [call("c1", "ls")]), result("c1", "a.ts", 0), step("done")]
    const file = write("piped.jsonl", lines)
    // A temp folder of its own, to see that the spooled copy is gone afterwards.
    const spool = mkdtempSync(join(dir, "spool-"))
    const proc = Bun.spawn(["bun", "run", "packages/cli/src/main.ts", "audit", "--json", "-", file], {
      cwd: ROOT,
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      env: { ...process.env, TMPDIR: spool }
    })
    proc.stdin.write(lines.map((l) => JSON.stringify(l)).join("\n") + "\n")
    await proc.stdin.end()
    const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited])
    expect(code).toBe(0)
    const [piped, fromFile] = stdout.trim().split("\n").map((l) => JSON.parse(l) as JsonAudited)
    expect(piped!.file).toBe("stdin")
    expect({ ...piped, file: file }).toEqual(fromFile!)
    expect(readdirSync(spool)).toEqual([])
  }, 30_000)

  test("--json prints exactly one object per file per line, with the documented keys", async () => {
    const a = write("shape-a.jsonl", [{ type: "user", text: "go" }, step("x", [call("c1", "ls")]), result("c1", "", 0)])
    const b = write("shape-b.jsonl", [{ type: "user", text: "go" }, step("y")])
    const { stdout, objects } = await auditJson(a, b)
    expect(stdout.trimEnd().split("\n")).toHaveLength(2)
    expect(objects.map((o) => o.file)).toEqual([a, b])
    for (const o of objects) expect(Object.keys(o).sort()).toEqual(["exit", "file", "incidents", "steps"])
    // The last step of a asked for more tool calls: the loop would not have ended there.
    expect(only(objects[0]!).exit).toBeNull()
  }, 30_000)

  test("what the log holds is printed without its secrets and without raw control characters (human and --json)", async () => {
    const curl = "curl -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlc2lnbmF0dXJl' https://api.example.test/v1"
    const failing = `401: key sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 rejected \u001b]0;owned\u0007`
    const file = write("secret\u001b[31m.jsonl", [
      { type: "user", text: "call the api" },
      ...[1, 2, 3, 4].flatMap((n) => [step("Trying the API.", [call(`c${n}`, curl)]), result(`c${n}`, failing, 1)])
    ])
    const human = await audit(file)
    const json = await audit("--json", file)
    for (const out of [human.stdout, json.stdout, json.stderr]) {
      expect(out).not.toContain("eyJhbGciOiJIUzI1NiJ9")
      expect(out).not.toContain("sk-proj-AbCd")
      expect(out).not.toMatch(/[\u001b\u0007]/)
    }
    // The findings are still there, with the secret's place marked.
    expect(human.stdout).toMatch(/bash-retry/)
    expect(human.stdout + json.stdout).toContain("[REDACTED]")
  }, 60_000)

  test("a named pipe given as FILE is read once and audited under its name; one nobody writes to still ends on SIGTERM", async () => {
    const fifo = join(dir, "run.pipe")
    expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0)
    const proc = Bun.spawn(["bun", "run", "packages/cli/src/main.ts", "audit", "--json", fifo], { cwd: ROOT, stdout: "pipe", stderr: "pipe" })
    // A writer that waits for the reader, as a shell's `<(…)` does.
    const writer = Bun.spawn(["sh", "-c", 'cat > "$1"', "sh", fifo], { stdin: new Blob([`${JSON.stringify({ type: "user", text: "hi" })}\n${JSON.stringify(step("hello"))}\n`]) })
    const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited, writer.exited])
    expect(code).toBe(0)
    expect(JSON.parse(stdout.trim())).toMatchObject({ file: fifo, steps: 1 })
    const waiting = Bun.spawn(["bun", "run", "packages/cli/src/main.ts", "audit", fifo], { cwd: ROOT, stdout: "pipe", stderr: "pipe" })
    await Bun.sleep(1_500)
    waiting.kill("SIGTERM")
    const ended = await Promise.race([waiting.exited, Bun.sleep(15_000).then(() => "still running")])
    if (ended === "still running") waiting.kill("SIGKILL")
    expect(ended).toBe(143)
  }, 60_000)

  test("the human timeline names step, detector and action, then a summary line", async () => {
    const file = write("human.jsonl", [
      { type: "user", text: "go" },
      step("Deploying.", [call("c1", "./deploy.sh")]),
      result("c1", "boom", 1),
      step("Again.", [call("c2", "./deploy.sh")]),
      result("c2", "boom", 1),
      step("Again.", [call("c3", "./deploy.sh")]),
      result("c3", "boom", 1),
      step("Again.", [call("c4", "./deploy.sh")]),
      result("c4", "boom", 1)
    ])
    const { stdout, code } = await audit(file)
    expect(code).toBe(0)
    // Step 2 is one event seen by several detectors: one entry, the others named after it.
    expect(stdout).toMatch(/step\s+2\s+breaker\s+degrade\s+3 consecutive tool failures/)
    expect(stdout).toMatch(/also seen by: .*bash-retry note/)
    expect(stdout).toMatch(/step\s+3\s+bash-retry\s+pause\s+bash_retry: `\.\/deploy\.sh` has failed 4 times/)
    expect(stdout).toContain(`${file}: 4 steps, `)
    expect(stdout).toContain("first exit try_best_paused at step 3")
  }, 30_000)

  // Without the traces the test is reported as skipped, never passed without running; in CI a
  // missing corpus is a broken checkout, not a reason to pass: it fails loudly there.
  const tracesThere = existsSync(DEV_TRACES)
  if (!tracesThere && Bun.env["CI"] === "true") throw new Error(`CI=true but the development traces at ${DEV_TRACES} are absent`)
  if (!tracesThere) console.warn(`\n⚠️  SKIPPED: ${DEV_TRACES} is absent; the audit of the development traces did not run\n`)
  test.skipIf(!tracesThere)(tracesThere ? "every development trace is audited without a file error" : `every development trace is audited without a file error [skipped: ${DEV_TRACES} is absent]`, async () => {
    const files = readdirSync(DEV_TRACES).filter((f) => f.endsWith(".jsonl")).map((f) => join(DEV_TRACES, f))
    expect(files.length).toBeGreaterThan(0)
    const { objects, code } = await auditInProcess(...files)
    expect(objects.filter((o) => "error" in o)).toEqual([])
    expect(code).toBe(0)
    expect(objects.map((o) => o.file)).toEqual(files)
    for (const o of objects as ReadonlyArray<JsonAudited>) {
      for (const i of o.incidents) expect(i.step).toBeLessThan(o.steps)
    }
  }, 60_000)
})
