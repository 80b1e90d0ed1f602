/**
 * The shapes the precision set adds (issue fixing in a repository): healthy runs that detectors
 * used to stop (a successful edit after refused attempts, exploration whose searches find
 * nothing, long streaks of reads and commands, edit-test cycles that make progress, commands
 * whose outputs share one masked shape, one change spread over many files) and looping runs of
 * the kinds the other sets lack (an action cycle, a refused edit sent again and again, a spin
 * over what was already done). Seeded and harness-neutral, like scenarios.ts.
 */
import type { Act } from "./harness-style.js"
import { longExploration, pollingJob, testRerunsAfterEdits, type Rng, type Scenario } from "./scenarios.js"

const MODULES = ["models", "views", "forms", "fields", "utils", "admin", "query", "sql/compiler", "db/backends/base", "core/handlers", "template/base", "http/request"]
const NAMES = ["get_prep_value", "resolve_expression", "as_sql", "to_python", "clean", "deconstruct", "contribute_to_class", "get_db_prep_save", "from_db_value", "formfield"]

const pathOf = (m: string) => `/testbed/django/${m}.py`
const sourceOf = (r: Rng, path: string): string =>
  Array.from({ length: r.int(6, 14) }, (_, i) => `${i === 0 ? "from" : "    def"} ${r.pick(NAMES)}_${r.int(1, 99)}(self): # ${path}:${i * 10}`).join("\n")
const shuffled = <T>(r: Rng, xs: ReadonlyArray<T>): Array<T> => [...xs].sort(() => r.next() - 0.5)

/** Reads of distinct files and searches that find something: the opening of every repository run. */
const reads = (r: Rng, n: number): Array<Act> => {
  const acts: Array<Act> = [{ kind: "shell", command: "ls /testbed", output: "AUTHORS\nCONTRIBUTING.rst\ndjango\ndocs\nsetup.py\ntests\ntox.ini", exit: 0 }]
  const modules = shuffled(r, MODULES)
  for (let i = 0; acts.length < n; i++) {
    const m = modules[i % modules.length]!
    if (r.chance(0.6)) acts.push({ kind: "read", path: pathOf(`${m}${i >= modules.length ? `_${i}` : ""}`), content: sourceOf(r, m) })
    else acts.push({ kind: "search", pattern: `def ${r.pick(NAMES)}`, output: `${pathOf(m)}:${r.int(10, 900)}:    def ${r.pick(NAMES)}(self, value):` })
  }
  return acts
}

const testRun = (r: Rng, failures: number): Act =>
  failures === 0
    ? { kind: "shell", command: "python -m pytest tests/model_fields -q", output: `${r.int(40, 200)} passed in ${r.int(1, 9)}.${r.int(10, 99)}s`, exit: 0 }
    : {
        kind: "shell",
        command: "python -m pytest tests/model_fields -q",
        output: `FAILED tests/model_fields/test_${r.pick(NAMES)}.py::Test${r.int(1, 99)} - AssertionError: ${r.int(0, 99)} != ${r.int(100, 200)}\n${failures} failed, ${r.int(40, 200)} passed`,
        exit: 1
      }

// ---- healthy ----

/** One or two refused `str_replace` attempts, a view of the file, then the edit that works; the tests pass. */
export const refusedThenEdit = (r: Rng): Scenario => {
  const acts = reads(r, r.int(5, 12))
  for (const m of shuffled(r, MODULES).slice(0, r.int(1, 2))) {
    const name = r.pick(NAMES)
    const target = `        return ${name}(value)`
    // The same change each time: only the text to replace is corrected after the file is viewed.
    const after = `        return ${name}(value, connection)`
    for (let i = 0; i < r.int(1, 2); i++) acts.push({ kind: "edit", path: pathOf(m), before: i % 2 === 0 ? `    ${target}` : `${target} `, after, ok: false })
    acts.push({ kind: "read", path: pathOf(m), content: sourceOf(r, m) })
    acts.push({ kind: "edit", path: pathOf(m), before: target, after })
  }
  acts.push(testRun(r, 0), { kind: "finish", message: "Fixed." })
  return { name: "refused-then-edit", acts, episodes: [] }
}

/** Many different searches that each answer "no matches", between reads, until one finds the code. */
export const noMatchExploration = (r: Rng): Scenario => {
  const acts = reads(r, r.int(3, 8))
  const words = shuffled(r, ["_check_prefetch", "deferred_loading", "select_for_no_key", "_not_support_combined", "reverse_related_filter", "get_fallback_ordering", "_parse_expression", "split_exclude_hint", "json_key_lookup", "_resolve_lookup_alias", "cache_key_suffix", "_annotation_mask"])
  for (const [i, w] of words.slice(0, r.int(7, 12)).entries()) {
    acts.push({ kind: "search", pattern: w, output: "" })
    if (i % 3 === 2) acts.push({ kind: "read", path: pathOf(MODULES[i % MODULES.length]!), content: sourceOf(r, w) })
  }
  acts.push({ kind: "search", pattern: "def get_ordering", output: `${pathOf("sql/compiler")}:288:    def get_order_by(self):` })
  acts.push({ kind: "edit", path: pathOf("sql/compiler"), before: "ordering = []", after: "ordering = list(self.query.order_by)" }, testRun(r, 0), { kind: "finish", message: "Fixed." })
  return { name: "no-match-exploration", acts, episodes: [] }
}

/** A long streak of reads and commands (20 to 40 steps, no edit), then one change spread over several files. */
export const longReadStreak = (r: Rng): Scenario => {
  const acts = reads(r, r.int(20, 40))
  for (let i = 0; i < r.int(2, 5); i++) acts.push({ kind: "shell", command: `git log --oneline -${r.int(3, 9)} -- django/${r.pick(MODULES)}.py`, output: `${r.int(100000, 999999).toString(16)} Fixed #${r.int(20000, 35000)} -- ${r.pick(NAMES)}`, exit: 0 })
  const files = shuffled(r, MODULES).slice(0, r.int(4, 7))
  for (const m of files) acts.push({ kind: "edit", path: pathOf(m), before: "def get_prep_value(self, value):", after: "def get_prep_value(self, value, connection=None):" })
  acts.push(testRun(r, 0), { kind: "finish", message: "Refactored." })
  return { name: "long-read-streak", acts, episodes: [] }
}

/** Test, edit, test: the same test command five or more times, fewer failures each time, until it passes. */
export const testEditProgress = (r: Rng): Scenario => {
  const acts = reads(r, r.int(4, 9))
  const failing = r.int(4, 7)
  for (let f = failing; f > 0; f--) {
    acts.push(testRun(r, f))
    if (r.chance(0.4)) acts.push({ kind: "read", path: pathOf(r.pick(MODULES)), content: sourceOf(r, "x") })
    acts.push({ kind: "edit", path: pathOf(r.pick(MODULES)), before: `value_${f}`, after: `value_${f - 1}` })
  }
  acts.push(testRun(r, 0), { kind: "finish", message: "Tests pass." })
  return { name: "test-edit-progress", acts, episodes: [] }
}

/** Different commands whose outputs share one shape once numbers and names are masked. */
export const sameShapeCommands = (r: Rng): Scenario => {
  const acts = reads(r, r.int(3, 7))
  const probes = shuffled(r, MODULES).slice(0, r.int(7, 10))
  const kind = r.int(0, 2)
  for (const m of probes) {
    if (kind === 0) acts.push({ kind: "shell", command: `wc -l django/${m}.py`, output: `${r.int(80, 2500)} django/${m}.py`, exit: 0 })
    else if (kind === 1) acts.push({ kind: "shell", command: `grep -c "def " django/${m}.py`, output: String(r.int(3, 90)), exit: 0 })
    else acts.push({ kind: "shell", command: `python -c "import django.${m.replace(/\//g, ".")} as m; print(len(dir(m)))"`, output: String(r.int(20, 400)), exit: 0 })
  }
  acts.push({ kind: "edit", path: pathOf(probes[0]!), before: "pass", after: "return None" }, testRun(r, 0), { kind: "finish", message: "Done." })
  return { name: "same-shape-commands", acts, episodes: [] }
}

export const PRECISION_HEALTHY: ReadonlyArray<(r: Rng) => Scenario> = [
  refusedThenEdit, noMatchExploration, longReadStreak, testEditProgress, sameShapeCommands, pollingJob, longExploration, testRerunsAfterEdits
]

// ---- looping ----

/** A healthy opening, then the looping stretch, labelled like the development labels. */
const looping = (name: string, kind: string, r: Rng, loop: ReadonlyArray<Act>, onsetAt = 1): Scenario => {
  const acts = reads(r, r.int(4, 10))
  const start = acts.length
  acts.push(...loop)
  return { name, acts, episodes: [{ start, onset: start + onsetAt, end: acts.length - 1, kind }] }
}

/** View the file, run the test (the same failure), view the file again, … and change nothing. */
export const actionCycle = (r: Rng): Scenario => {
  const m = r.pick(MODULES)
  const content = sourceOf(r, m)
  const fail = testRun(r, 1)
  const loop: Array<Act> = []
  for (let i = 0; i < r.int(5, 8); i++) loop.push({ kind: "read", path: pathOf(m), content }, fail)
  return looping("action-cycle", "action_cycle", r, loop, 2)
}

/** A refused edit sent again and again, almost unchanged. */
export const refusedEditResent = (r: Rng): Scenario => {
  const m = pathOf(r.pick(MODULES))
  const loop: Array<Act> = Array.from({ length: r.int(5, 9) }, () => ({ kind: "edit", path: m, before: "    return value.strip()", after: "    return value.strip() or None", ok: false }))
  return looping("refused-edit-resent", "repeated_edit", r, loop)
}

/** Nothing changes while the agent re-reads what it read and re-runs what it ran, in new orders. */
export const spinOverDone = (r: Rng): Scenario => {
  const pool: Array<Act> = shuffled(r, MODULES).slice(0, 4).map((m) => ({ kind: "read", path: pathOf(m), content: `# ${m}\n    def clean(self): ...` }))
  pool.push({ kind: "shell", command: "python reproduce.py", output: "ValueError: invalid literal for int() with base 10: 'x'", exit: 1 }, { kind: "search", pattern: "def clean", output: `${pathOf("forms")}:120:    def clean(self):` })
  const loop: Array<Act> = [...pool]
  for (let i = 0; i < r.int(10, 16); i++) loop.push(pool[(i * 5 + r.int(0, 1)) % pool.length]!)
  return looping("spin-over-done", "no_progress_spin", r, loop, pool.length)
}
