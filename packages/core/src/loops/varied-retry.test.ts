import { describe, expect, test } from "bun:test"
import type { AssistantMessage, ToolPart } from "../model/message.js"
import { call } from "./fixtures.js"
import { noProgressSpin } from "./no-progress-spin.js"
import { repeatedObservation } from "./repeated-observation.js"
import { stepRecordOf, type StepRecord } from "./step-record.js"
import { variedRetry } from "./varied-retry.js"

let n = 0
/** One real step record: a tool call with its result, built the way the RunLoop builds them. */
const step = (name: string, input: unknown, output: string, extra: Partial<ToolPart> = {}): StepRecord => {
  const m = call(`s${n++}`, name, input)
  const withResult: AssistantMessage = { ...m, parts: m.parts.map((p) => (p.type === "tool" ? ({ ...p, output, ...extra } as ToolPart) : p)) }
  return stepRecordOf(withResult)
}
const sh = (command: string, output: string, exit = 0) => step("execute_bash", { command, is_input: "false" }, `${output}\n[The command completed with exit code ${exit}.]`)

describe("variedRetry", () => {
  test("the same plain answer to other arguments is a survey, not a retry; the same refusal printed with exit 0 is a retry", () => {
    const links = ["docs", "blog", "pricing", "about", "careers", "status"].map((page) => sh(`curl -s -o /dev/null -w '%{http_code}' https://example.org/${page}`, "200"))
    expect(variedRetry(links)).toBeNull()
    const formatted = ["a", "b", "c", "d", "e"].map((f) => sh(`black --check src/${f}.py`, "All done!\n1 file would be left unchanged."))
    expect(variedRetry(formatted)).toBeNull()
    const solver = [17, 18, 19, 20].map((x) => sh(`python solve.py ${x}`, "Wrong answer"))
    expect(variedRetry(solver)).toMatchObject({ count: 4 })
    const locked = ["8b0e", "77a1", "c3d9", "0f42"].map((id) => sh(`python manage.py migrate --run-id ${id}`, "Traceback (most recent call last):\nOperationalError: could not obtain lock"))
    expect(variedRetry(locked)).toMatchObject({ count: 4 })
  })

  test("password guesses: one skeleton, a new password each time, the same refusal", () => {
    const tries = ["admin", "123456", "letmein", "secret", "flag"].map((g) => sh(`unzip -P ${g} secret.zip`, "   skipping: flag.txt   incorrect password", 82))
    expect(variedRetry(tries.slice(0, 3))).toBeNull()
    expect(variedRetry(tries.slice(0, 4))).toMatchObject({ skeleton: "unzip -P <a>", count: 4, variants: 4 })
    expect(variedRetry(tries)?.count).toBe(5)
  })

  test("the tries need not be back to back: an uninstall or a look between them", () => {
    const records: Array<StepRecord> = []
    for (const v of ["1.9.0", "1.10.2", "1.11.0", "2.0.0"]) {
      records.push(sh(`pip install torch==${v}`, `ERROR: Could not find a version that satisfies the requirement torch==${v} (from versions: none)`, 1))
      records.push(sh(`pip uninstall -y torch`, "WARNING: Skipping torch as it is not installed."))
      records.push(step("str_replace_editor", { command: "view", path: "/app/requirements.txt" }, "torch"))
    }
    expect(variedRetry(records.slice(0, -2))).toMatchObject({ skeleton: "pip install <a>", count: 4 })
  })

  test("an answer that echoes the argument is the same answer", () => {
    const tries = [17, 18, 19, 20].map((k) => sh(`python solve.py ${k}`, `Trying ${k}... Wrong answer.`))
    expect(variedRetry(tries)?.count).toBe(4)
  })

  test("healthy: answers that differ, successful installs, passing tests, a file change between, reads", () => {
    expect(variedRetry([11, 12, 13, 14].map((k) => sh(`python solve.py ${k}`, `answer=${k * 7} (${k % 2 ? "odd" : "even"})`)))).toBeNull()
    expect(variedRetry(["numpy", "pandas", "rich", "click"].map((p) => sh(`pip install ${p}`, `Successfully installed ${p}-1.${p.length}.0`)))).toBeNull()
    expect(variedRetry(["a", "b", "c", "d"].map((f) => sh(`python -m pytest -q tests/test_${f}.py`, "3 passed in 0.12s")))).toBeNull()
    const edited = ["a", "b", "c", "d"].map((g) => sh(`unzip -P ${g} s.zip`, "incorrect password", 82))
    edited.splice(2, 0, step("str_replace_editor", { command: "str_replace", path: "/app/a.py", old_str: "a", new_str: "b" }, "The file /app/a.py has been edited."))
    expect(variedRetry(edited)).toBeNull()
    expect(variedRetry(["a", "b", "c", "d"].map((f) => sh(`cat ${f}.txt`, "hello")))).toBeNull()
    expect(variedRetry(["a", "b", "c", "d"].map((f) => sh(`chmod +x ${f}.sh`, "")))).toBeNull()
  })

  test("the same command four times is repeated action's business, not this one's", () => {
    expect(variedRetry([1, 2, 3, 4].map(() => sh("unzip -P x s.zip", "incorrect password", 82)))).toBeNull()
  })
})

describe("repeated observation and spins on other harnesses", () => {
  test("probes that all differ but get the same answer on most of a window (not in a row)", () => {
    const refused = (path: string) => sh(`curl -s localhost:8080${path}`, "curl: (7) Failed to connect to localhost port 8080 after 0 ms: Couldn't connect to server", 7)
    const records = ["/", "/a", "/b"].map(refused)
    records.push(sh("ps aux | grep server", "root 1 0.0 bash"))
    records.push(...["/c", "/d", "/e"].map(refused))
    records.push(sh("netstat -tlnp", "tcp 0 0 0.0.0.0:22 LISTEN"))
    expect(repeatedObservation(records)).toBeNull()
    records.push(refused("/f"))
    expect(repeatedObservation(records)).toMatchObject({ count: 7, window: 10 })
  })

  test("polling a job whose log moves on never counts; a frozen log does", () => {
    const poll = (out: string) => step("execute_bash", { command: "", is_input: "true" }, out)
    const moving = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((e) => poll(`epoch ${e}/20 loss=${(1 / e).toFixed(3)}`))
    expect(moving.every((r) => r.poll)).toBe(true)
    expect(repeatedObservation(moving)).toBeNull()
    expect(noProgressSpin(moving)).toBeNull()
    const frozen = Array.from({ length: 10 }, () => poll("epoch 3/20 loss=0.812"))
    expect(repeatedObservation(frozen)?.count).toBeGreaterThanOrEqual(5)
  })

  test("think and todo steps are bookkeeping; silent successes are no observation", () => {
    expect(step("think", { thought: "x" }, "Your thought has been logged.").role).toBe("bookkeeping")
    expect(step("TodoWrite", { todos: [] }, "Todos have been modified successfully.").role).toBe("bookkeeping")
    const silent = ["chmod +x a.sh", "git add -A", "export X=1", "ulimit -n 99", "touch /tmp/x"].map((c) => sh(c, ""))
    expect(silent.every((r) => r.silent)).toBe(true)
    expect(repeatedObservation(silent)).toBeNull()
  })

  test("exploration is no repeated observation: new searches that find nothing, new files counted alike", () => {
    const emptyGreps = ["a", "b", "c", "d", "e", "f", "g"].map((p) => sh(`grep -rn ${p} .`, "", 1))
    // grep's exit status 1 with nothing printed is "no match", an answer and not a failure.
    expect(emptyGreps.map((r) => [r.failed, r.lookup])).toEqual(emptyGreps.map(() => [false, true]))
    expect(repeatedObservation(emptyGreps)).toBeNull()
    expect(noProgressSpin([...emptyGreps, ...emptyGreps.slice(0, 3).map((_, i) => sh(`grep -rn h${i} .`, "", 1))])).toBeNull()
    const lineCounts = ["a", "b", "c", "d", "e", "f"].map((f, i) => sh(`wc -l src/${f}.py`, `${100 + i * 7} src/${f}.py`))
    expect(repeatedObservation(lineCounts)).toBeNull()
    // The very same search again and again asks nothing new: every one after the first counts.
    const sameGrep = Array.from({ length: 6 }, () => sh("grep -rn a .", "", 1))
    expect(repeatedObservation(sameGrep)?.count).toBe(5)
    // One name in other spellings is one question: after the first search for it, five more that find nothing are a repeat.
    const respelled = ["retryDelay", "retry_delay", "RetryDelay", "retry-delay", "'RETRY DELAY'", "retrydelay"].map((p) => sh(`rg -n ${p} src`, "", 1))
    expect(repeatedObservation(respelled)?.count).toBe(5)
    expect(repeatedObservation([...respelled.slice(0, 5), sh("rg -n retryDelayMs src", "", 1)])).toBeNull()
    // So is one name searched by other programs and flags in the same place (`git grep` a lookup too);
    // the same name in another place is another question.
    const tools = ["grep -rn initTelemetry .", "rg -i --hidden initTelemetry", "git grep -n 'initTelemetry'", "ag initTelemetry", "rg -uu initTelemetry ./", "grep -R --include='*.ts' initTelemetry ."]
    expect(repeatedObservation(tools.map((c) => sh(c, "", 1)))?.count).toBe(5)
    expect(repeatedObservation(["src", "lib", "test", "docs", "scripts", "tools"].map((d) => sh(`rg -n initTelemetry ${d}`, "", 1)))).toBeNull()
    // Different commands that fail the same way are no exploration either.
    const refused = ["/", "/health", "/api"].map((p) => sh(`curl -s localhost:8080${p}`, "curl: (7) Failed to connect to localhost port 8080", 7))
    expect(repeatedObservation(refused)).toMatchObject({ count: 3, failed: true })
  })

  test("a printed exit code makes the step failed; an editor without a diff still changes the file", () => {
    expect(sh("make", "error", 2).failed).toBe(true)
    expect(sh("make", "ok", 0).failed).toBe(false)
    expect(step("replace", { file_path: "/a.py", old_string: "a", new_string: "b" }, "Successfully modified file: /a.py (1 replacements).").changed).toBe(true)
    expect(step("replace", { file_path: "/a.py", old_string: "a", new_string: "b" }, "Failed to edit", { state: "error" }).changed).toBe(false)
  })
})
