/**
 * Stuck shapes seen on terminal-task harnesses: loops that change their arguments, loops that
 * show only in the output, and the plain ones. Each builds an opening (healthy exploration), the
 * stuck stretch (labelled), and sometimes a way out.
 */
import type { Act } from "./harness-style.js"
import { longExploration, type Rng, type Scenario } from "./scenarios.js"

const opening = (r: Rng): Array<Act> => longExploration(r).acts.slice(0, r.int(4, 12))

/** Puts the stuck stretch after an opening and labels it; `interleave` adds a think now and then. */
const stuck = (name: string, kind: string, r: Rng, loop: ReadonlyArray<Act>, interleave = 0.15): Scenario => {
  const acts = opening(r)
  const start = acts.length
  let onset = -1
  for (const [i, act] of loop.entries()) {
    // Bookkeeping between tries (a thought, a todo list update) neither breaks nor extends the loop.
    if (i > 0 && r.chance(interleave))
      acts.push(r.chance(0.5) ? { kind: "think", thought: `Maybe the ${i}th idea works; try another variant.` } : { kind: "todo", items: [`try variant ${i}`, "check the result"] })
    if (i === 1) onset = acts.length
    acts.push(act)
  }
  const end = acts.length - 1
  if (r.chance(0.4)) acts.push({ kind: "finish", message: "I could not complete the task." })
  return { name, acts, episodes: [{ start, onset, end, kind }] }
}

const GUESSES = ["password", "admin", "123456", "letmein", "secret", "flag", "ctf2024", "qwerty", "hunter2", "dragon", "monkey", "trustno1", "root", "toor", "changeme", "welcome"]

/** Password guesses: one command, a new password each time, the same refusal. */
export const passwordGuesses = (r: Rng): Scenario => {
  const n = r.int(5, 12)
  const tool = r.int(0, 2)
  const loop: Array<Act> = Array.from({ length: n }, (_, i) => {
    const g = `${GUESSES[i % GUESSES.length]}${i >= GUESSES.length ? i : ""}`
    if (tool === 0) return { kind: "shell", command: `unzip -o -P ${g} secret.zip`, output: "Archive:  secret.zip\n   skipping: flag.txt                incorrect password", exit: 82 }
    if (tool === 1) return { kind: "shell", command: `7z x -y -p${g} backup.7z`, output: `7-Zip 16.02\nExtracting archive: backup.7z\nERROR: Wrong password : flag.txt\nSub items Errors: 1\nArchives with Errors: 1`, exit: 2 }
    return { kind: "shell", command: `steghide extract -sf image.jpg -p ${g} -f`, output: "steghide: could not extract any data with that passphrase!", exit: 1 }
  })
  return stuck("password-guesses", "varied_retry", r, loop)
}

/** Package churn: install one version, uninstall, another version, the same error each time. */
export const pipChurn = (r: Rng): Scenario => {
  const pkg = r.pick(["torch", "tensorflow", "numpy", "opencv-python", "scikit-learn"])
  const versions = ["1.9.0", "1.10.2", "1.11.0", "1.12.1", "1.13.0", "2.0.0", "2.0.1", "2.1.0"]
  const loop: Array<Act> = []
  const rounds = r.int(3, 5)
  for (let i = 0; i < rounds; i++) {
    const v = versions[i]!
    loop.push({ kind: "shell", command: `pip install ${pkg}==${v}`, output: `Collecting ${pkg}==${v}\nSuccessfully installed ${pkg}-${v}`, exit: 0 })
    loop.push({ kind: "shell", command: "python app.py", output: `Traceback (most recent call last):\n  File "/workspace/app.py", line 3, in <module>\n    import ${pkg.split("-")[0]}\nImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory`, exit: 1 })
    if (i < rounds - 1) loop.push({ kind: "shell", command: `pip uninstall -y ${pkg}`, output: `Found existing installation: ${pkg} ${v}\nUninstalling ${pkg}-${v}:\n  Successfully uninstalled ${pkg}-${v}`, exit: 0 })
  }
  return stuck("pip-churn", "varied_retry", r, loop, 0.05)
}

/** Version hunt: every requested version is refused the same way. */
export const versionHunt = (r: Rng): Scenario => {
  const pkg = r.pick(["flask", "django", "pydantic", "sqlalchemy"])
  const loop: Array<Act> = Array.from({ length: r.int(5, 10) }, (_, i) => ({
    kind: "shell",
    command: `pip install ${r.chance(0.3) ? "--no-cache-dir " : ""}${pkg}==${i + 1}.${r.int(0, 9)}.${r.int(0, 9)}`,
    output: `ERROR: Could not find a version that satisfies the requirement ${pkg}==${i + 1}.0 (from versions: none)\nERROR: No matching distribution found for ${pkg}==${i + 1}.0`,
    exit: 1
  }))
  return stuck("version-hunt", "varied_retry", r, loop)
}

/** A solver fed one number after another, the same wrong answer each time (exit 0). */
export const solverWrong = (r: Rng): Scenario => {
  const loop: Array<Act> = Array.from({ length: r.int(5, 12) }, () => {
    const n = r.int(1, 999)
    return r.chance(0.5)
      ? { kind: "shell", command: `python3 solve.py ${n}`, output: `Trying ${n}...\nWrong answer. Try again.`, exit: 0 }
      : { kind: "shell", command: `python3 solve.py ${n} --verbose`, output: `Trying ${n}...\nWrong answer. Try again.`, exit: 0 }
  })
  return stuck("solver-wrong", "varied_retry", r, loop)
}

/** Probes that all differ and all get the same answer: the service is not up. */
export const deadServiceProbes = (r: Rng): Scenario => {
  const paths = ["/", "/health", "/api", "/api/v1/status", "/login", "/index.html", "/metrics", "/ping"]
  const loop: Array<Act> = Array.from({ length: r.int(8, 13) }, (_, i) => {
    if (i % 4 === 3 && r.chance(0.6)) return { kind: "shell", command: `ps aux | grep -v grep | grep ${r.pick(["server", "node", "gunicorn"])}`, output: "", exit: 1 }
    const p = paths[i % paths.length]!
    return { kind: "shell", command: `curl ${r.pick(["-s", "-sS", "-v", "-m 5"])} http://localhost:${r.pick([8080, 8000, 3000])}${p}`, output: `curl: (7) Failed to connect to localhost port 8080 after 0 ms: Couldn't connect to server`, exit: 7 }
  })
  return stuck("dead-service-probes", "repeated_observation", r, loop, 0.1)
}

/** A hung job polled again and again: the output never moves. */
export const hungJobPolls = (r: Rng): Scenario => {
  const frozen = `epoch 3/20 loss=0.8123 acc=0.611 step 1500`
  const loop: Array<Act> = [{ kind: "shell", command: "nohup python train.py > /tmp/job.log 2>&1 &", output: "[1] 4242", exit: 0 }]
  for (let i = 0; i < r.int(6, 12); i++) loop.push(r.chance(0.5) ? { kind: "poll", output: frozen } : { kind: "shell", command: `sleep ${r.pick([30, 60])} && tail -n 1 /tmp/job.log`, output: frozen, exit: 0 })
  const s = stuck("hung-job-polls", "repeated_observation", r, loop, 0.05)
  // The launch is the stretch's first step, the first frozen poll is not a repeat yet.
  return { ...s, episodes: s.episodes.map((e) => ({ ...e, onset: e.onset + 1 })) }
}

/** The very same command, the very same failure. */
export const sameCommand = (r: Rng): Scenario => {
  const cmd = r.pick(["python app.py", "npm start", "cargo run", "./run.sh"])
  const loop: Array<Act> = Array.from({ length: r.int(4, 8) }, () => ({ kind: "shell", command: cmd, output: `Error: config file /etc/app/config.yaml not found\n    at load (${cmd}:12)`, exit: 1 }))
  return stuck("same-command", "repeated_action", r, loop, 0.2)
}

/** Searches for one thing under ever new names: nothing found each time. */
export const emptySearches = (r: Rng): Scenario => {
  const loop: Array<Act> = Array.from({ length: r.int(5, 8) }, (_, i) => ({ kind: "search", pattern: `${r.pick(["get", "load", "parse", "init"])}_${r.pick(["Config", "Settings", "Options"])}${i}`, output: "" }))
  return stuck("empty-searches", "repeated_observation", r, loop, 0.1)
}

/** Edit, run the test, the same failure; another edit, the same failure … */
export const editTestLoop = (r: Rng): Scenario => {
  const loop: Array<Act> = []
  for (let i = 0; i < r.int(3, 5); i++) {
    loop.push({ kind: "edit", path: "/workspace/src/main.py", before: `limit = ${i}`, after: `limit = ${i + 1}` })
    loop.push({ kind: "shell", command: "python -m pytest -q tests/test_main.py", output: "F\nFAILED tests/test_main.py::test_limit - AssertionError: expected overflow to raise\n1 failed, 7 passed", exit: 1 })
  }
  return stuck("edit-test-loop", "repeated_failing_command", r, loop, 0)
}

/** Flailing: a new command every step, each failing another way, nothing changes. */
export const flailing = (r: Rng): Scenario => {
  const tries: ReadonlyArray<readonly [string, string, number]> = [
    ["python3 main.py", "ModuleNotFoundError: No module named 'app'", 1],
    ["python3 -m app", "No module named app.__main__; 'app' is a package and cannot be directly executed", 1],
    ["./main.py", "bash: ./main.py: Permission denied", 126],
    ["node index.js", "Error: Cannot find module '/workspace/index.js'", 1],
    ["make run", "make: *** No rule to make target 'run'.  Stop.", 2],
    ["npm start", "npm ERR! Missing script: \"start\"", 1],
    ["java -jar app.jar", "Error: Unable to access jarfile app.jar", 1],
    ["cargo run", "error: could not find `Cargo.toml` in `/workspace` or any parent directory", 101],
    ["go run .", "go: go.mod file not found in current directory or any parent directory", 1],
    ["ruby main.rb", "ruby: No such file or directory -- main.rb (LoadError)", 1],
    ["bash run.sh", "bash: run.sh: No such file or directory", 127]
  ]
  const loop: Array<Act> = [...tries].sort(() => r.next() - 0.5).slice(0, r.int(8, 11)).map(([command, output, exit]) => ({ kind: "shell", command, output, exit }))
  const s = stuck("flailing", "failure_streak", r, loop, 0.1)
  // The streak is the loop: its onset is the step where the rule's count is met.
  return { ...s, episodes: s.episodes.map((e) => ({ ...e, onset: e.start + 7 > e.end ? e.end : e.start + 7 })) }
}

export const STUCK: ReadonlyArray<(r: Rng) => Scenario> = [
  flailing,passwordGuesses, pipChurn, versionHunt, solverWrong, deadServiceProbes, hungJobPolls, sameCommand, emptySearches, editTestLoop]
