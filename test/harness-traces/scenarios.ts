/**
 * Shapes of agent runs on terminal tasks, harness-neutral: healthy ones (long explorations,
 * polling a job, iterative builds with edits, test reruns after edits, pip installs that work)
 * and stuck ones (password guesses, pip churn, a solver fed number after number, probes that all
 * get the same answer, a hung job polled forever, one command again and again). Each stuck shape
 * labels its episode the way the development labels do: `start` = first step of the stuck
 * stretch, `onset` = first step that repeats something, `end` = last step (inclusive).
 */
import type { Act } from "./harness-style.js"

export interface LabelledEpisode {
  readonly start: number
  readonly onset: number
  readonly end: number
  readonly kind: string
}

export interface Scenario {
  readonly name: string
  readonly acts: ReadonlyArray<Act>
  readonly episodes: ReadonlyArray<LabelledEpisode>
}

/** A small seeded generator (mulberry32): the same seed gives the same traces. */
export const rng = (seed: number) => {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return {
    next,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(xs: ReadonlyArray<T>): T => xs[Math.floor(next() * xs.length)]!,
    chance: (p: number) => next() < p
  }
}
export type Rng = ReturnType<typeof rng>

const FILES = [
  "src/main.py", "src/utils.py", "src/config.py", "tests/test_main.py", "README.md", "setup.py", "src/parser.py", "src/server.py", "Makefile",
  "requirements.txt", "src/db.py", "src/cli.py", "src/models.py", "src/views.py", "tests/test_utils.py", "tests/conftest.py", "docs/usage.md",
  "src/auth.py", "src/cache.py", "scripts/run.sh", "src/io/reader.py", "src/io/writer.py", "pyproject.toml", "src/api/routes.py"
]
const WORDS = ["alpha", "beta", "config", "parse", "token", "retry", "cache", "index", "worker", "handler", "schema", "result"]

const sourceOf = (r: Rng, path: string): string =>
  Array.from({ length: r.int(4, 12) }, (_, i) => `${i === 0 ? "import" : "def"} ${r.pick(WORDS)}_${r.int(1, 99)}(${r.pick(WORDS)}): # ${path} line ${i}`).join("\n")

const lastFailed = (acts: ReadonlyArray<Act>): boolean => {
  const last = acts[acts.length - 1]
  return last !== undefined && ((last.kind === "shell" && last.exit !== 0) || (last.kind === "search" && last.output === ""))
}

/** Opening moves every run makes: look around, read a few files. Healthy by construction. */
const explore = (r: Rng, n: number): Array<Act> => {
  const acts: Array<Act> = [{ kind: "shell", command: "ls -la", output: FILES.map((f) => `-rw-r--r-- 1 root root ${r.int(100, 9000)} Nov 30 ${f}`).join("\n"), exit: 0 }]
  const files = [...FILES].sort(() => r.next() - 0.5)
  for (let i = 0; acts.length < n; i++) {
    const f = files[i % files.length]!
    const roll = r.next()
    if (roll < 0.45) acts.push({ kind: "read", path: `/workspace/${f}`, content: sourceOf(r, f) })
    else if (roll < 0.65) acts.push({ kind: "search", pattern: `${r.pick(WORDS)}_${r.int(1, 40)}`, output: r.chance(0.7) || lastFailed(acts) ? `${f}:${r.int(1, 300)}: ${r.pick(WORDS)} = ${r.int(0, 9)}` : "" })
    else if (roll < 0.7) acts.push({ kind: "todo", items: [`read ${f}`, `find where ${r.pick(WORDS)} is built`, "fix and test"] })
    else if (roll < 0.75) acts.push({ kind: "think", thought: `The ${r.pick(WORDS)} logic lives in ${f}; next I check how ${r.pick(WORDS)} is built.` })
    else if (roll < 0.85) acts.push({ kind: "shell", command: `wc -l ${f} && head -n ${r.int(5, 40)} ${f}`, output: `${r.int(10, 900)} ${f}\n${sourceOf(r, f)}`, exit: 0 })
    else if (roll < 0.9) acts.push({ kind: "shell", command: `git log --oneline -n ${r.int(3, 8)} -- ${f}`, output: Array.from({ length: 3 }, () => `${r.int(0x1000000, 0xfffffff).toString(16)} ${r.pick(WORDS)} ${r.pick(WORDS)}`).join("\n"), exit: 0 })
    // Exploring fails now and then (a tool that is not installed, a guessed file that is not
    // there), never twice in a row: three alike failures in a row are what the labels call a loop.
    else if (lastFailed(acts)) acts.push({ kind: "read", path: `/workspace/${f}`, content: sourceOf(r, f) })
    else if (r.chance(0.5)) acts.push({ kind: "shell", command: `which ${r.pick(["rg", "fd", "jq", "tree", "bat"])}`, output: "", exit: 1 })
    else acts.push({ kind: "shell", command: `cat ${r.pick(["CONTRIBUTING.md", "docs/design.md", ".env.example", "config/settings.yaml"])}`, output: `cat: ${r.pick(WORDS)}: No such file or directory`, exit: 1 })
  }
  return acts
}

const pytestPass = (r: Rng) => ({ kind: "shell" as const, command: "python -m pytest -q tests", output: `${r.int(8, 60)} passed in ${r.int(1, 9)}.${r.int(10, 99)}s`, exit: 0 })

// ---- healthy shapes ----

/** A long exploration, one fix, the tests pass. */
export const longExploration = (r: Rng): Scenario => ({
  name: "long-exploration",
  acts: [...explore(r, r.int(18, 35)), { kind: "edit", path: "/workspace/src/main.py", before: "return a", after: "return a or b" }, pytestPass(r), { kind: "finish", message: "Fixed." }],
  episodes: []
})

/** Start a long job, poll it while its log moves on, read the result. */
export const pollingJob = (r: Rng): Scenario => {
  const acts: Array<Act> = [...explore(r, r.int(3, 8)), { kind: "shell", command: "nohup python train.py --epochs 20 > /tmp/job.log 2>&1 &", output: `[1] ${r.int(1000, 9999)}`, exit: 0 }]
  const polls = r.int(8, 16)
  let loss = 2.5
  for (let e = 1; e <= polls; e++) {
    loss *= 0.9
    const lines = `epoch ${e}/20 loss=${loss.toFixed(4)} acc=${(0.5 + e / 40).toFixed(3)} step ${e * 500}`
    if (r.chance(0.5)) acts.push({ kind: "poll", output: lines })
    else acts.push({ kind: "shell", command: `sleep ${r.pick([20, 30, 60])} && tail -n 3 /tmp/job.log`, output: lines, exit: 0 })
  }
  acts.push({ kind: "read", path: "/workspace/metrics.json", content: `{"acc": 0.93, "loss": ${loss.toFixed(3)}}` }, { kind: "finish", message: "Trained." })
  return { name: "polling-job", acts, episodes: [] }
}

/** Build, read the error, fix, build again: different errors each time, then it builds. */
export const iterativeBuild = (r: Rng): Scenario => {
  const acts: Array<Act> = explore(r, r.int(4, 10))
  const rounds = r.int(3, 6)
  for (let i = 0; i < rounds; i++) {
    const file = r.pick(["src/parser.c", "src/main.c", "src/io.c", "src/util.c"])
    acts.push({ kind: "shell", command: "make -j4", output: `gcc -O2 -c ${file}\n${file}:${r.int(10, 400)}:${r.int(1, 40)}: error: '${r.pick(WORDS)}_${i}' undeclared (first use in this function)\nmake: *** [Makefile:12: build] Error 1`, exit: 2 })
    if (r.chance(0.5)) acts.push({ kind: "read", path: `/workspace/${file}`, content: sourceOf(r, file) })
    acts.push({ kind: "edit", path: `/workspace/${file}`, before: `x_${i}`, after: `${r.pick(WORDS)}_${i}` })
  }
  acts.push({ kind: "shell", command: "make -j4", output: "gcc -O2 -o app *.o\nbuild ok", exit: 0 }, { kind: "shell", command: "./app --selftest", output: "selftest: 12/12 ok", exit: 0 }, { kind: "finish", message: "Builds." })
  return { name: "iterative-build", acts, episodes: [] }
}

/** The failing test, an edit, the test again (another failure), an edit, … until it passes. */
export const testRerunsAfterEdits = (r: Rng): Scenario => {
  const acts: Array<Act> = explore(r, r.int(5, 12))
  const failing = r.int(2, 4)
  for (let i = failing; i > 0; i--) {
    acts.push({ kind: "shell", command: "python -m pytest -q tests/test_main.py", output: `F${".".repeat(r.int(2, 9))}\nFAILED tests/test_main.py::test_${r.pick(WORDS)}_${i} - AssertionError: assert ${r.int(0, 99)} == ${r.int(100, 200)}\n${i} failed, ${r.int(3, 9)} passed`, exit: 1 })
    acts.push({ kind: "edit", path: "/workspace/src/main.py", before: `value_${i}`, after: `value_${i - 1}` })
  }
  acts.push(pytestPass(r), { kind: "shell", command: "python -m pytest -q tests/test_utils.py", output: `${r.int(3, 9)} passed in 0.${r.int(10, 99)}s`, exit: 0 }, { kind: "finish", message: "Tests pass." })
  return { name: "test-reruns", acts, episodes: [] }
}

/** Install what the task needs, package by package; every install works. */
export const pipInstalls = (r: Rng): Scenario => {
  const acts: Array<Act> = explore(r, r.int(3, 7))
  const pkgs = ["numpy", "pandas", "requests", "scipy", "pyyaml", "rich", "click", "httpx"].sort(() => r.next() - 0.5).slice(0, r.int(4, 7))
  for (const p of pkgs) acts.push({ kind: "shell", command: `pip install ${p}`, output: `Collecting ${p}\n  Downloading ${p}-${r.int(1, 3)}.${r.int(0, 20)}.${r.int(0, 9)}-py3-none-any.whl (${r.int(50, 900)} kB)\nInstalling collected packages: ${p}\nSuccessfully installed ${p}-${r.int(1, 3)}.${r.int(0, 20)}.${r.int(0, 9)}`, exit: 0 })
  acts.push({ kind: "write", path: "/workspace/run.py", content: "import numpy\nprint('ok')" }, { kind: "shell", command: "python run.py", output: "ok", exit: 0 }, { kind: "finish", message: "Done." })
  return { name: "pip-installs", acts, episodes: [] }
}

/** Try the solver on several inputs, each answer different, then fix it. */
export const solverExperiments = (r: Rng): Scenario => {
  const acts: Array<Act> = explore(r, r.int(3, 8))
  for (let i = 0; i < r.int(4, 8); i++) {
    const n = r.int(1, 500)
    const verdict = r.pick(["prime", "composite", "a perfect square", "overflowed the 32-bit range", "has no solution below the limit", "took the slow path"])
    acts.push({ kind: "shell", command: `python solve.py ${n}`, output: `input=${n} answer=${n * 7 + 3} steps=${r.int(1, 90)}: ${verdict}`, exit: 0 })
  }
  acts.push({ kind: "edit", path: "/workspace/solve.py", before: "n * 7", after: "n * 7 + 1" }, { kind: "shell", command: "python solve.py --check", output: "all 50 cases ok", exit: 0 }, { kind: "finish", message: "Solved." })
  return { name: "solver-experiments", acts, episodes: [] }
}

/** Setup commands that print nothing (chmod, git add, quiet installs), then the real work. */
export const silentSetup = (r: Rng): Scenario => {
  const acts: Array<Act> = explore(r, r.int(3, 6))
  const silent = [
    "chmod +x scripts/run.sh", "git add -A", "git config user.email agent@example.com", "pip install -q pyyaml", "export PYTHONPATH=/workspace/src",
    "chmod 600 .env", "git stash list", "pip install -q rich", "touch /tmp/ready", "ln -sf /workspace/data data", "ulimit -n 4096", "git add src tests"
  ].sort(() => r.next() - 0.5)
  for (const command of silent.slice(0, r.int(5, 9))) acts.push({ kind: "shell", command, output: "", exit: 0 })
  acts.push(pytestPass(r), { kind: "finish", message: "Set up." })
  return { name: "silent-setup", acts, episodes: [] }
}

/** Start a server, wait for it once, then try its endpoints: each answers something else. */
export const serverStartup = (r: Rng): Scenario => {
  const acts: Array<Act> = explore(r, r.int(3, 8))
  acts.push({ kind: "shell", command: "nohup python -m http.server 8000 > /tmp/server.log 2>&1 &", output: `[1] ${r.int(1000, 9999)}`, exit: 0 })
  acts.push({ kind: "shell", command: "curl -s localhost:8000/health", output: "curl: (7) Failed to connect to localhost port 8000 after 0 ms: Couldn't connect to server", exit: 7 })
  acts.push({ kind: "shell", command: "sleep 2 && curl -s localhost:8000/health", output: '{"status": "ok"}', exit: 0 })
  for (const p of ["/api/users", "/api/items?limit=5", "/api/users/1", "/api/version", "/api/items/9"].slice(0, r.int(3, 5)))
    acts.push({ kind: "shell", command: `curl -s localhost:8000${p}`, output: JSON.stringify({ path: p, items: Array.from({ length: r.int(0, 3) }, () => r.pick(WORDS)) }), exit: 0 })
  acts.push({ kind: "edit", path: "/workspace/src/api/routes.py", before: "limit=10", after: "limit=int(limit)" }, pytestPass(r), { kind: "finish", message: "Endpoints fixed." })
  return { name: "server-startup", acts, episodes: [] }
}

/** Look at the data from several angles with one-off snippets: every answer differs. */
export const dataExploration = (r: Rng): Scenario => {
  const acts: Array<Act> = explore(r, r.int(2, 5))
  const probes: Array<readonly [string, () => string]> = [
    ["head -n 5 data.csv", () => `id,name,score\n${r.int(1, 9)},${r.pick(WORDS)},${r.int(0, 100)}`],
    [`python -c "import pandas as pd; print(pd.read_csv('data.csv').shape)"`, () => `(${r.int(100, 9999)}, ${r.int(3, 20)})`],
    [`python -c "import pandas as pd; print(pd.read_csv('data.csv').dtypes)"`, () => "id int64\nname object\nscore float64"],
    [`python -c "import pandas as pd; print(pd.read_csv('data.csv').isna().sum())"`, () => `id 0\nname ${r.int(0, 9)}\nscore ${r.int(0, 30)}`],
    [`python -c "import pandas as pd; print(pd.read_csv('data.csv').describe())"`, () => `count ${r.int(100, 999)}\nmean ${r.int(1, 99)}.5\nstd 3.2`],
    ["sqlite3 app.db '.tables'", () => "users items orders"],
    [`sqlite3 app.db 'select count(*) from users'`, () => String(r.int(1, 500))]
  ]
  for (const [command, out] of probes.sort(() => r.next() - 0.5).slice(0, r.int(5, 7))) acts.push({ kind: "shell", command, output: out(), exit: 0 })
  acts.push({ kind: "write", path: "/workspace/clean.py", content: "import pandas as pd" }, { kind: "shell", command: "python clean.py", output: "wrote clean.csv (812 rows)", exit: 0 }, { kind: "finish", message: "Cleaned." })
  return { name: "data-exploration", acts, episodes: [] }
}

/** Run each test file on its own after the fix; they pass. */
export const testFilesOneByOne = (r: Rng): Scenario => {
  const acts: Array<Act> = [...explore(r, r.int(4, 9)), { kind: "edit", path: "/workspace/src/utils.py", before: "x + 1", after: "x + 2" }]
  for (const f of ["test_main", "test_utils", "test_parser", "test_db", "test_cli", "test_auth"].slice(0, r.int(4, 6)))
    acts.push({ kind: "shell", command: `python -m pytest -q tests/${f}.py`, output: `${r.int(2, 30)} passed in 0.${r.int(10, 99)}s`, exit: 0 })
  acts.push({ kind: "finish", message: "All pass." })
  return { name: "test-files", acts, episodes: [] }
}

/** Check the environment with one-off snippets that all print "ok", then get to work. */
export const importChecks = (r: Rng): Scenario => {
  const acts: Array<Act> = explore(r, r.int(2, 5))
  // Four at most: five identical answers in a row is what the labels call a repeated observation.
  for (const m of ["numpy", "pandas", "torch", "sklearn", "yaml", "requests", "scipy"].sort(() => r.next() - 0.5).slice(0, r.int(3, 4)))
    acts.push({ kind: "shell", command: `python3 -c "import ${m}; print('ok')"`, output: "ok", exit: 0 })
  acts.push({ kind: "write", path: "/workspace/solve.py", content: "import numpy" }, { kind: "shell", command: "python3 solve.py", output: "answer: 42", exit: 0 }, { kind: "finish", message: "Done." })
  return { name: "import-checks", acts, episodes: [] }
}

/** Rewrite the script through a heredoc and run it, several rounds, each run a new result. */
export const heredocRounds = (r: Rng): Scenario => {
  const acts: Array<Act> = explore(r, r.int(3, 6))
  const rounds = r.int(3, 5)
  // A different failure each round: the same one three times would be a loop (repeated failure).
  const errors = ["ValueError: bad row", "got 17 rows, expected 20", "KeyError: 'id'", "answer 41 (off by one)", "IndexError: list index out of range"].sort(() => r.next() - 0.5)
  for (let i = 0; i < rounds; i++) {
    acts.push({ kind: "shell", command: `cat > /workspace/solve.py << 'EOF'\nimport sys\nprint(round(${i}))\nEOF`, output: "", exit: 0 })
    acts.push({ kind: "shell", command: "python3 /workspace/solve.py < input.txt", output: i === rounds - 1 ? "42" : `${errors[i]!} at round ${i}`, exit: i === rounds - 1 ? 0 : 1 })
  }
  acts.push({ kind: "shell", command: "echo 42 > /workspace/answer.txt", output: "", exit: 0 }, { kind: "finish", message: "Answer written." })
  return { name: "heredoc-rounds", acts, episodes: [] }
}

/** Install system packages one after another; each works. */
export const aptInstalls = (r: Rng): Scenario => {
  const acts: Array<Act> = explore(r, r.int(2, 5))
  for (const p of ["curl", "jq", "build-essential", "libssl-dev", "sqlite3", "unzip"].sort(() => r.next() - 0.5).slice(0, r.int(4, 6)))
    acts.push({ kind: "shell", command: `apt-get install -y ${p}`, output: `Reading package lists... Done\nBuilding dependency tree... Done\nThe following NEW packages will be installed:\n  ${p}\nSetting up ${p} (${r.int(1, 9)}.${r.int(0, 30)}-${r.int(1, 5)}) ...`, exit: 0 })
  acts.push(pytestPass(r), { kind: "finish", message: "Installed." })
  return { name: "apt-installs", acts, episodes: [] }
}

export const HEALTHY: ReadonlyArray<(r: Rng) => Scenario> = [
  importChecks, heredocRounds, aptInstalls,
  longExploration, pollingJob, iterativeBuild, testRerunsAfterEdits, pipInstalls, solverExperiments, silentSetup, serverStartup, dataExploration, testFilesOneByOne
]
