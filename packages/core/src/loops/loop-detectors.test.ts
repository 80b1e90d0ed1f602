import { describe, expect, test } from "bun:test"
import { EpisodeLadder, levelOf, DEFAULT_LADDER } from "./escalation.js"
import { noProgressSpin } from "./no-progress-spin.js"
import { repeatedFailure } from "./repeated-failure.js"
import { DEFAULT_REPEATED_OBSERVATION, repeatedObservation } from "./repeated-observation.js"
import { replayedSequence } from "./replayed-sequence.js"
import { stepRecords, type StepRecord } from "./step-record.js"
import { stepRecord, user } from "./fixtures.js"
import type { AssistantMessage } from "../model/message.js"

const rec = (action: string, observation = `out of ${action}`, extra: Partial<StepRecord> = {}): StepRecord => stepRecord({ action, observation, ...extra })

describe("repeatedObservation", () => {
  test("other calls each given the same plain answer are news; the same call, or a refusal, is a repeat", () => {
    const imports = ["json", "yaml", "toml", "requests", "numpy", "pandas"].map((m) => rec(`python -c "import ${m}; print('ok')"`, "ok"))
    expect(repeatedObservation(imports)).toBeNull()
    const same = Array.from({ length: 5 }, () => rec(`python -c "import json; print('ok')"`, "ok"))
    expect(repeatedObservation(same)).toMatchObject({ count: 5 })
    const refused = ["a", "b", "c", "d", "e"].map((u) => rec(`curl -s https://api.example.org/${u}`, '{"error":"forbidden"}'))
    expect(repeatedObservation(refused)).toMatchObject({ count: 5 })
  })

  test("a run of thousands of one answer is counted to 64 steps at most (twice the threshold when that is more)", () => {
    const same = (i: number) => rec(`grep q${i}`, "no matches found for <q>")
    const run = Array.from({ length: 3000 }, (_, i) => same(i))
    expect(repeatedObservation(run)).toMatchObject({ count: 64 })
    expect(repeatedObservation(run, { ...DEFAULT_REPEATED_OBSERVATION, repeats: 50 })).toMatchObject({ count: 100 })
  })

  test("different commands, one masked output, 5 in a row → found; 4 → not", () => {
    const same = (i: number) => rec(`grep q${i}`, "no matches found for <q>")
    expect(repeatedObservation([0, 1, 2, 3].map(same))).toBeNull()
    expect(repeatedObservation([0, 1, 2, 3, 4].map(same))).toMatchObject({ tool: "bash", count: 5 })
  })
  test("the same error 3 times in a row is enough (failedRepeats); 3 successes are not", () => {
    const failing = (i: number) => rec(`pip install pkg==${i}`, "error: no matching distribution for pkg==0", { failed: true })
    expect(repeatedObservation([0, 1, 2].map(failing))).toMatchObject({ count: 3, failed: true })
    expect(repeatedObservation([0, 1, 2].map((i) => ({ ...failing(i), failed: false })))).toBeNull()
    expect(repeatedObservation([0, 1].map(failing))).toBeNull()
  })
  test("another tool, a change, or a different output breaks the run", () => {
    const same = (i: number) => rec(`grep q${i}`, "")
    expect(repeatedObservation([same(0), same(1), { ...same(2), tool: "find" }, same(3), same(4)])).toBeNull()
    expect(repeatedObservation([same(0), same(1), { ...same(2), changed: true }, same(3), same(4)])).toBeNull()
    expect(repeatedObservation([same(0), same(1), rec("x", "other"), same(3), same(4)])).toBeNull()
  })
})

describe("repeatedObservation of one answer to reworded lookups", () => {
  const LINKS = "1. npm/cli#4828: npm ci does not install optional dependencies for other platforms\n2. rollup/rollup#4699: Cannot find module @rollup/rollup-linux-x64-gnu\n3. vitejs/vite#15532: build fails in docker on linux"
  const search = (i: number, query: string, results: string): AssistantMessage => ({
    role: "assistant",
    id: `s${i}`,
    parentId: "u1",
    step: i,
    finish: "tool-calls",
    parts: [{ type: "tool", callId: `c${i}`, name: "google_web_search", input: { query }, state: "completed", output: `Web search results for "${query}":\n\n${results}` }]
  })
  const queries = ["Cannot find module rollup-linux-x64-gnu", "rollup linux x64 gnu missing", "npm optional dependency rollup bug", "fix rollup native module not found", "rollup-linux-x64-gnu docker vite", "rollup gnu module CI failure"]
  test("the same links for a question asked again in other words: counted, though each question is new", () => {
    const records = stepRecords([user("u1"), ...queries.map((q, i) => search(i, q, LINKS))])
    expect(repeatedObservation(records)).toMatchObject({ tool: "google_web_search", count: 5 })
  })
  test("new links each time, or a short answer such as no results, stay exploration", () => {
    const research = stepRecords([user("u1"), ...queries.map((q, i) => search(i, q, `${LINKS}\n4. result only for ${i}`))])
    expect(repeatedObservation(research)).toBeNull()
    const none = stepRecords([user("u1"), ...queries.map((q, i) => search(i, q, "No results found."))])
    expect(repeatedObservation(none)).toBeNull()
  })
})

describe("repeatedObservation of failing test runs", () => {
  const suite = (pkg: string, named: string) => rec(`cd packages/${pkg} && cargo test`, "error[E0]: mismatched types in <path>:0", { failed: true, verification: true, namedObservation: named })
  test("each package's suite failing on its own file is triage, not one answer", () => {
    const runs = ["auth", "billing", "cart", "db", "email", "search"].map((p) => suite(p, `error[E0]: mismatched types in src/${p}.rs:0`))
    expect(repeatedObservation(runs)).toBeNull()
  })
  test("the same failure from differently spelled runs is still one answer", () => {
    const runs = ["auth", "billing", "cart"].map((p) => suite(p, "ImportError: no module named 'parser'"))
    expect(repeatedObservation(runs)).toMatchObject({ count: 3, failed: true })
  })
})

describe("repeatedFailure", () => {
  const test_ = (observation = "FAILED test_parser - AssertionError: 0 != 0") => rec("pytest tests/test_parser.py", observation, { failed: true })
  const edit = (i: number) => rec(`edit parser.py ${i}`, "File updated.", { changed: true })
  test("the same test failing the same way 3 times, edits between, is found (editedBetween)", () => {
    expect(repeatedFailure([test_(), edit(1), test_(), edit(2), test_()])).toMatchObject({ count: 3, editedBetween: true })
    expect(repeatedFailure([test_(), test_(), test_()])).toMatchObject({ count: 3, editedBetween: false })
  })
  test("a success or another error of the same command ends the streak; 2 failures are a retry", () => {
    expect(repeatedFailure([test_(), { ...test_(), failed: false }, test_(), test_()])).toBeNull()
    expect(repeatedFailure([test_(), test_("ImportError: no module x"), test_(), test_()])).toBeNull()
    expect(repeatedFailure([test_(), edit(1), test_()])).toBeNull()
  })
  test("the newest step must be the failing run; runs older than lookback do not count", () => {
    expect(repeatedFailure([test_(), test_(), test_(), edit(1)])).toBeNull()
    const far = [test_(), ...Array.from({ length: 20 }, (_, i) => edit(i)), test_(), test_()]
    expect(repeatedFailure(far)).toBeNull()
  })
  test("steps that repeat a later step cost none of the lookback: a restart cycle costs two steps a round", () => {
    const probe = rec("curl -s localhost:3000", "000", { failed: true })
    const cycle = (pid: number) => [rec("npm run dev &", `[1] <n>`), probe, rec("tail -n 3 dev.log", "EADDRINUSE"), rec(`kill ${pid}`, "")]
    const rounds = Array.from({ length: 8 }, (_, i) => cycle(20000 + i)).flat().slice(0, -2)
    expect(repeatedFailure(rounds)).toMatchObject({ count: 8 })
    // However often they repeat, the scan ends at 5 times the lookback.
    const long = [probe, probe, ...Array.from({ length: 100 }, () => rec("git status", "clean")), probe]
    expect(repeatedFailure(long)).toBeNull()
    expect(repeatedFailure([probe, probe, ...Array.from({ length: 90 }, () => rec("git status", "clean")), probe])).toMatchObject({ count: 3 })
  })
  test("a suite that fails less after each edit moves on; as many failing, or more, is the same failure", () => {
    const run = (failing: number, passing = 40) => rec("npm test", "FAIL <path> Tests: 0 failed, 0 passed", { failed: true, tally: { failing, passing } })
    expect(repeatedFailure([run(19), edit(1), run(18), edit(2), run(17)])).toBeNull()
    expect(repeatedFailure([run(19), edit(1), run(19, 38), edit(2), run(19, 41)])).toBeNull()
    expect(repeatedFailure([run(17), edit(1), run(19), edit(2), run(19)])).toMatchObject({ count: 3 })
    expect(repeatedFailure([run(19), edit(1), run(19), edit(2), run(19), edit(3), run(18)])).toBeNull()
    // Progress further back does not excuse the three same failures since.
    expect(repeatedFailure([run(20), run(19), edit(1), run(19), edit(2), run(19)])).toMatchObject({ count: 3 })
  })
  test("a count that bounces (3, 2, 3, 2) or goes round (5, 4, 3, 5, 4, 3) sets no new best: its runs since its best are counted", () => {
    const run = (failing: number) => rec("npm test", "Tests: 0 failed", { failed: true, tally: { failing, passing: 10 } })
    const between = (counts: ReadonlyArray<number>) => counts.flatMap((c, i) => (i === 0 ? [run(c)] : [edit(i), run(c)]))
    expect(repeatedFailure(between([3, 2, 3, 2, 3, 2, 3, 2]))).toMatchObject({ count: 7, editedBetween: true })
    expect(repeatedFailure(between([5, 4, 3, 5, 4, 3, 5, 4, 3]))).toMatchObject({ count: 7 })
    // A new best starts the count again.
    expect(repeatedFailure(between([3, 2, 3, 2, 1]))).toBeNull()
    expect(repeatedFailure(between([3, 2, 3, 2, 1, 2, 1]))).toMatchObject({ count: 3 })
  })
  test("a measure the check prints past its earlier values after each edit (a p99 against its budget) moves on; one that bounces does not", () => {
    const bench = (p99: number) => rec("make bench-check", "check: p99=0ms budget=0ms FAIL", { failed: true, rawObservation: `check: p99=${p99}ms budget=50ms FAIL Time: ${(p99 % 7) + 1}.2s` })
    const between = (values: ReadonlyArray<number>) => values.flatMap((v, i) => (i === 0 ? [bench(v)] : [edit(i), bench(v)]))
    expect(repeatedFailure(between([73.2, 70.1, 66.4, 63, 60.2, 57.1, 54.8, 52.3]))).toBeNull()
    expect(repeatedFailure(between([60, 62, 60, 62, 60, 62]))).toMatchObject({ count: 5 })
    // The clock of the run is no measure: the same failure with only its time moving still counts.
    const timed = (s: number) => rec("npm test", "1 failed", { failed: true, rawObservation: `1 failed in ${s}s` })
    expect(repeatedFailure([timed(3.1), edit(1), timed(2.9), edit(2), timed(2.7)])).toMatchObject({ count: 3 })
  })
})

describe("noProgressSpin over one run read through other pipes", () => {
  test("the same failing test run ten times with other output filters and no edit is a spin", () => {
    const filters = ["tail -n 20", "head -n 4", "grep -A3 FAIL", "grep -n Error", "tail -n 5", "sed -n 1,6p", "tail -n 8", "grep -A4 Expected", "head -n 2", "tail -n 3"]
    const runs = filters.map((f, i) => rec(`bash({"command":"npx vitest run a.ts 2>&1 | ${f}"})`, `part ${i} of the failure`, { coreAction: `bash({"command":"npx vitest run a.ts"})` }))
    expect(noProgressSpin(runs)).not.toBeNull()
    expect(noProgressSpin(runs.map((r) => ({ ...r, coreAction: r.action })))).toBeNull()
  })
})

describe("replayedSequence", () => {
  const walk = ["a", "b", "c", "d", "e", "f", "g"].map((a) => rec(a))
  test("a 7-step walk replayed after a detour is found with its length and distance", () => {
    const records = [...walk, rec("x"), rec("y"), ...walk]
    expect(replayedSequence(records)).toEqual({ length: 7, distance: 9, distinct: 7 })
  })
  test("5 replayed steps are too few; a change since the first copy hides it", () => {
    expect(replayedSequence([...walk, ...walk.slice(0, 5)])).toBeNull()
    expect(replayedSequence([...walk, rec("w", "", { changed: true }), ...walk])).toBeNull()
  })
  test("one or two actions again and again are not a replayed sequence", () => {
    const ab = Array.from({ length: 16 }, (_, i) => rec(i % 2 ? "a" : "b"))
    expect(replayedSequence(ab)).toBeNull()
  })
})

describe("noProgressSpin", () => {
  test("10 unchanged steps, 6 of them earlier actions → a spin", () => {
    const history = ["a", "b", "c", "d"].map((a) => rec(a))
    const window = ["a", "x1", "b", "x2", "c", "x3", "d", "x4", "a", "b"].map((a) => rec(a, `fresh ${a}`))
    // Outputs seen before count only when the step failed: these two worked.
    expect(noProgressSpin([...history, ...window])).toEqual({ window: 10, repeatedActions: 6, repeatedOutputs: 0 })
  })
  test("all-new actions that all fail with an error seen before → a spin", () => {
    const window = Array.from({ length: 10 }, (_, i) => rec(`cmd ${i}`, "permission denied", { failed: true }))
    expect(noProgressSpin([rec("first", "permission denied", { failed: true }), ...window])?.repeatedOutputs).toBe(10)
  })
  test("exploration is no spin: new lookups whose answers all look alike", () => {
    const searches = Array.from({ length: 12 }, (_, i) => rec(`grep -rn name_${i} .`, "", { lookup: true }))
    expect(noProgressSpin(searches)).toBeNull()
    const counts = Array.from({ length: 12 }, (_, i) => rec(`wc -l file_${i}.py`, "0 <path>", { lookup: true }))
    expect(noProgressSpin(counts)).toBeNull()
  })
  test("paging (the same call, a new result each time) is reading, not a spin", () => {
    const pages = Array.from({ length: 14 }, (_, i) => rec("scroll_down", `page ${"abcdefghijklmn"[i]}`))
    expect(noProgressSpin(pages)).toBeNull()
  })
  test("a change in the window, or exploring new things, is progress", () => {
    const history = ["a", "b", "c", "d"].map((a) => rec(a))
    const window = ["a", "b", "c", "d", "a", "b", "c", "d", "a", "b"].map((a) => rec(a))
    expect(noProgressSpin([...history, ...window.slice(0, 9), rec("e", "", { changed: true })])).toBeNull()
    expect(noProgressSpin(Array.from({ length: 20 }, (_, i) => rec(`new ${i}`)))).toBeNull()
  })
})

describe("EpisodeLadder", () => {
  test("a detector's own count: note at 3, remind at 5, stop at 8, each once", () => {
    const ladder = new EpisodeLadder(DEFAULT_LADDER)
    const levels = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((count, step) => ladder.observe(step, { key: "A", count }))
    expect(levels).toEqual([null, null, "note", null, "remind", null, null, "stop", null])
  })
  test("without a count: note at detection, remind 2 steps later, stop 5 steps later; a gap or a new key starts over", () => {
    const ladder = new EpisodeLadder(DEFAULT_LADDER)
    const seen = [0, 1, 2, 3, 4, 5].map((step) => ladder.observe(step, { key: "spin" }))
    expect(seen).toEqual(["note", null, "remind", null, null, "stop"])
    expect(ladder.observe(6, null)).toBeNull()
    expect(ladder.observe(7, { key: "spin" })).toBe("note")
    expect(ladder.observe(8, { key: "other" })).toBe("note")
  })
  test("a wait holds the count at most; what it held stays off, so the wait's end is no jump", () => {
    const ladder = new EpisodeLadder(DEFAULT_LADDER)
    // Eight looks within their patience (most 3), then a step that is no poll with no new evidence, then new failures.
    const waited = [3, 4, 5, 6, 7, 8].map((count, step) => ladder.observe(step, { key: "A", count }, 3))
    expect(waited).toEqual(["note", null, null, null, null, null])
    expect(ladder.observe(6, { key: "A", count: 8 })).toBeNull()
    expect([9, 10, 11, 12, 13].map((count, i) => ladder.observe(7 + i, { key: "A", count }))).toEqual([null, "remind", null, null, "stop"])
  })
  test("levelOf", () => {
    expect([2, 3, 5, 8].map((c) => levelOf(c, DEFAULT_LADDER))).toEqual([null, "note", "remind", "stop"])
  })
})
