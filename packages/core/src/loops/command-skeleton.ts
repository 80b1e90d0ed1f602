/**
 * The skeleton of a shell command line: program, subcommand and flags, with the arguments that
 * vary from one try to the next masked (passwords, versions, package names, numbers, paths). A
 * loop that changes its arguments — `unzip -P guess1 f.zip` … `unzip -P guess9 f.zip`, `pip
 * install x==1.0` … `pip install x==1.3` — keeps one skeleton. Also: is a command a poll of a
 * running job (`sleep 30; tail log`, an empty keystroke to a running process)? Pure, never throws.
 */

const QUOTED = /"(?:[^"\\\n]|\\.)*"|'[^'\n]*'/g
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/
const REDIRECT = /^(?:\d*>>?|<<?|&>|\d*>&\d*|<<<)/
/** Interpreters: their first argument (the script) names what runs, so it stays in the skeleton. */
const INTERPRETERS = new Set(["python", "python2", "python3", "node", "bun", "deno", "ruby", "perl", "bash", "sh", "zsh", "php", "java", "go"])
/** Wrappers that only change how the next command runs. */
const WRAPPERS = new Set(["sudo", "env", "time", "nohup", "timeout", "nice", "stdbuf", "command", "exec", "xargs"])
/**
 * Programs that only show something. Showing different files is reading, not retrying, so a
 * command line made of these alone has no skeleton (repeated observation still sees it).
 */
const VIEWERS = new Set([
  "cat", "head", "tail", "less", "more", "file", "wc", "ls", "ll", "stat", "du", "df", "find", "grep", "egrep", "fgrep", "rg", "ag",
  "which", "whereis", "type", "echo", "printf", "pwd", "whoami", "id", "strings", "xxd", "hexdump", "od", "md5sum", "sha1sum",
  "sha256sum", "diff", "tree", "cd", "sort", "uniq", "cut", "awk", "sed", "tr", "nl", "jq", "true", "clear", "history", "man", "locate",
  "readlink", "realpath", "basename", "dirname", "printenv", "uname", "hostname", "date", "column", "fold", "rev", "tac", "bat", "fd", "test", "ack"
])
const SUBCOMMAND = /^[a-z][a-z0-9-]{1,24}$/
const POLLERS = new Set(["sleep", "wait", "tail", "ps", "pgrep", "jobs", "watch", "squeue", "nvidia-smi", "uptime", "pg_isready"])

/** `&&`, `||`, `;`, `|`, a background `&` — not the `&` of a redirection (`2>&1`, `&>`). */
const SEPARATOR = /&&|\|\||;|\|&?|(?<![<>&])&(?![>&])/

/** A short hash of a quoted string, its digits masked: `python -c "…"` snippets stay apart. */
const quotedToken = (quoted: string): string => {
  let h = 5381
  for (const ch of quoted.replace(/\d+/g, "0")) h = ((h * 33) ^ ch.charCodeAt(0)) >>> 0
  return ` __quoted_${h.toString(36)}__ `
}

/** Simple commands of a command line's first line (`&&`, `||`, `;`, `|` split), quotes masked. */
const simpleCommands = (command: string): Array<Array<string>> => {
  // A heredoc body or a multi-line script is content, not the command's shape.
  const firstLine = command.split("\n", 1)[0] ?? ""
  return firstLine
    .replace(QUOTED, quotedToken)
    .split(SEPARATOR)
    .map((part) => part.trim().split(/\s+/).filter((t) => t !== ""))
    .filter((tokens) => tokens.length > 0)
}

/** Drop leading assignments and wrappers (with their numeric or flag arguments). */
const unwrap = (tokens: ReadonlyArray<string>): ReadonlyArray<string> => {
  let i = 0
  while (i < tokens.length) {
    const t = tokens[i]!
    if (ASSIGNMENT.test(t)) i++
    // Codex's argv `["bash", "-lc", "…"]` arrives joined: the shell wrapper is not the command.
    else if (/^(?:ba|z|da)?sh$/.test(t) && /^-l?c$/.test(tokens[i + 1] ?? "")) i += 2
    else if (WRAPPERS.has(t)) {
      i++
      while (i < tokens.length && (tokens[i]!.startsWith("-") || /^\d/.test(tokens[i]!))) i++
    } else break
  }
  return tokens.slice(i)
}

const programOf = (token: string): string => token.replace(/^.*\//, "")

/** A simple command that only shows something: a viewer, or `git grep` (a search like `grep`'s). */
const viewing = (tokens: ReadonlyArray<string>): boolean => {
  const program = programOf(tokens[0] ?? "")
  return VIEWERS.has(program) || (program === "git" && tokens[1] === "grep")
}

/** One simple command's skeleton: program, subcommand, flags (values masked), `<a>` for arguments. */
const simpleSkeleton = (raw: ReadonlyArray<string>): string => {
  const tokens = unwrap(raw).filter((t) => !REDIRECT.test(t))
  if (tokens.length === 0) return ""
  const program = programOf(tokens[0]!)
  const out = [program]
  let rest = tokens.slice(1)
  if (INTERPRETERS.has(program.replace(/[\d.]+$/, ""))) {
    // `python solve.py 17`: the script stays, its arguments vary. `python -m pkg` keeps the module,
    // `python -c "…"` its code (quoted, hashed with digits masked).
    const script = rest.findIndex((t) => !t.startsWith("-"))
    if (script >= 0) {
      out.push(...rest.slice(0, script + 1).map((t) => (t.startsWith("-") ? t : t.replace(/\d+/g, "0"))))
      rest = rest.slice(script + 1)
    }
  } else if (rest[0] !== undefined && SUBCOMMAND.test(rest[0])) {
    out.push(rest[0])
    rest = rest.slice(1)
  }
  for (const t of rest) {
    if (t.startsWith("-")) out.push(t.replace(/=.*$/, "=").replace(/^(-[A-Za-z])(?!-).+$/, "$1").replace(/\d+/g, "0"))
    else if (out[out.length - 1] !== "<a>") out.push("<a>")
  }
  return out.join(" ")
}

// A database client asked one query that only reads (`psql $DB -c "select * from orders where …"`,
// `mysql -e 'SHOW TABLES'`, `sqlite3 app.db "SELECT …"`): a question, as a `grep` is, whose
// different tables and conditions ask different things. Nothing in it may write.
const SQL_CLIENT = /^\s*(?:PGPASSWORD=\S+\s+)?(?:psql|mysql|mariadb|sqlite3|duckdb|clickhouse-client|cockroach\s+sql)\b/
const SQL_READ = /"\s*(?:select|show|describe|desc|explain|with|\\d[a-z+]*)\b[^"]*"|'\s*(?:select|show|describe|desc|explain|with|\\d[a-z+]*)\b[^']*'/i
const SQL_WRITE = /\b(?:insert|update|delete|drop|alter|create|truncate|grant|revoke|copy|vacuum|call|merge|replace)\b|<|>/i

/** A database's readiness asked (`mysqladmin ping`, `redis-cli ping`): a look, as `pg_isready` is. */
const READINESS_PING = /^\s*(?:mysqladmin|mariadb-admin|redis-cli)\b[^|;&]*\bping\b[^|;&]*$/

// A command run in a container (`docker compose exec -T worker pgrep -af x`, `kubectl exec pod -c app -- grep …`).
const EXEC_FLAGS = String.raw`(?:(?:-[uwecn]|--(?:user|workdir|env|container|namespace))[ =]\S+\s+|-{1,2}[\w-]+\s+)*`
const CONTAINER_EXEC = new RegExp(String.raw`^\s*(?:docker(?:\s+compose)?|podman|kubectl(?:\s+-n\s+\S+)?)\s+exec\s+` + EXEC_FLAGS + String.raw`(?!-)\S+\s+` + EXEC_FLAGS + String.raw`(?:--\s+)?`)

/** The command a container is asked to run (`docker compose exec -T db mysqladmin ping`: `mysqladmin ping`); any other line as it is. */
export const insideContainer = (command: string): string => command.replace(CONTAINER_EXEC, "")

const isReadOnlyQuery = (command: string): boolean =>
  !command.includes("\n") && SQL_CLIENT.test(command) && SQL_READ.test(command) && !SQL_WRITE.test(command.replace(/2>&1|2>\/dev\/null/g, ""))

/**
 * The skeleton of a command line, or "" when it has none worth comparing: empty, or made only of
 * programs that show something (`cat`, `ls`, `grep` …), whose different arguments mean reading
 * different things.
 */
export const commandSkeleton = (command: string): string => {
  if (isReadOnlyQuery(command)) return ""
  const parts = simpleCommands(command).map((tokens) => ({ tokens: unwrap(tokens), skeleton: simpleSkeleton(tokens) }))
  const doing = parts.filter((p) => p.tokens.length > 0 && !viewing(p.tokens))
  if (doing.length === 0) return ""
  return parts.map((p) => p.skeleton).filter((s) => s !== "").join(" ; ")
}

/**
 * What a command line does, without the viewers its output is piped through (`npx vitest run a.ts
 * 2>&1 | tail -n 20` and `… | grep -A3 FAIL` run one test): the same run read through another
 * window is the same run. A line with several commands (`&&`, `;`) or more lines is returned as it is.
 */
export const commandCore = (command: string): string => {
  if (command.includes("\n")) return command
  // Quotes masked with filler of their length, so a `|` inside them splits nothing and positions hold.
  const masked = command.replace(QUOTED, (q) => "_".repeat(q.length))
  if (/&&|\|\||;/.test(masked)) return command
  const pipes = [...masked.matchAll(/\|&?/g)].map((m) => m.index!)
  let end = command.length
  for (let k = pipes.length - 1; k >= 0; k--) {
    const stage = masked.slice(pipes[k]! + 1, end).trim().split(/\s+/)
    if (!VIEWERS.has(programOf(unwrap(stage)[0] ?? ""))) break
    end = pipes[k]!
  }
  return command.slice(0, end).replace(/\s*2>&1\s*$/, "").trim()
}

/**
 * The arguments of a command line as written (quotes removed), each at least 2 characters: an
 * output that echoes them back (`Wrong answer: 17`, `incorrect password for guess3`) is masked
 * with them before two tries are compared.
 */
export const commandArguments = (command: string): Array<string> => {
  const firstLine = command.split("\n", 1)[0] ?? ""
  const out: Array<string> = []
  for (const part of firstLine.split(SEPARATOR)) {
    const tokens = unwrap(part.trim().split(/\s+/).filter((t) => t !== ""))
    for (const t of tokens.slice(1)) {
      const value = t.startsWith("-") ? (t.includes("=") ? t.slice(t.indexOf("=") + 1) : "") : t
      const bare = value.replace(/^["']|["']$/g, "")
      if (bare.length >= 2 && !REDIRECT.test(bare)) out.push(bare)
    }
  }
  return out
}

/**
 * Does a command poll something that runs on its own (a build, a training job, a server)? An
 * empty command (a keystroke-less read of a running process, OpenHands' `is_input`), or a line
 * whose every simple command waits or looks (`sleep 30 && tail -n 20 train.log`, `ps aux | grep
 * node`) with at least one that waits or follows a job.
 */
export const isPollCommand = (command: string): boolean => {
  if (command.trim() === "") return true
  const programs = lookPrograms(command)
  if (programs.length === 0) return true
  const waits = programs.some((p) => POLLERS.has(p))
  return waits && programs.every((p) => p === "" || POLLERS.has(p) || VIEWERS.has(p))
}

/**
 * Does a command only look at something (`curl -sf localhost:8080/health`, `fly status`, `tail
 * app.log`), waiting or not? A look that fails while the job it looks at is still coming up is
 * asked again once that job shows it moved (try-best's bash retry).
 */
export const isLookCommand = (line: string): boolean => {
  const command = insideContainer(line)
  if (isReadOnlyQuery(command) || READINESS_PING.test(command)) return true
  const programs = lookPrograms(command)
  return programs.length > 0 && programs.every((p) => p === "" || POLLERS.has(p) || VIEWERS.has(p))
}

/** The programs of a command line, a look at a running job spelled `sleep` and a fetch or a status question `cat`. */
const lookPrograms = (command: string): Array<string> =>
  simpleCommands(command).map((tokens) => {
    const words = unwrap(tokens)
    const program = programOf(words[0] ?? "")
    // `docker logs web`, `kubectl get pods`, `gh run view 42`: looking at what runs on its own.
    // An own key only: a command named `constructor` or `__proto__` is just a command.
    const polls = Object.hasOwn(POLLING_SUBCOMMANDS, program) ? POLLING_SUBCOMMANDS[program] : undefined
    const verb = program === "kubectl" ? kubectlVerb(words) : words.slice(1)
    const looks = polls !== undefined && (polls.includes(verb[0] ?? "") || polls.includes(`${verb[0] ?? ""} ${verb[1] ?? ""}`))
    return looks ? "sleep" : isFetch(program, words) || asksStatus(words) || reportsStatus(program) ? "cat" : program
  })

/** A project's own script named for the status it reports (`./ci-status.sh`, `check_health.py`, `deploy-status`): a look, as `fly status` is. */
const STATUS_SCRIPT = /^(?:[\w.]+[-_])?(?:status|health|healthcheck|progress)(?:[-_][\w]+)?(?:\.(?:sh|py|js|mjs|ts|rb))?$/i

const reportsStatus = (program: string): boolean => STATUS_SCRIPT.test(program)

/** kubectl's flags that take the next word as their value (`-n staging rollout status`). */
const KUBECTL_VALUE_FLAGS = new Set(["-n", "--namespace", "--context", "--kubeconfig", "--cluster", "--user", "-l", "--selector", "-o", "--output", "-f", "--filename", "-c", "--container"])

/** kubectl's words after its program, its flags and their values left out: the verb first (`rollout status deploy/api`). */
const kubectlVerb = (words: ReadonlyArray<string>): Array<string> => {
  const out: Array<string> = []
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!
    if (!w.startsWith("-")) out.push(w)
    else if (KUBECTL_VALUE_FLAGS.has(w)) i++
  }
  return out
}

/** `30`, `0.5`, `30s`, `2m`, `1h`: a `sleep` argument in seconds (NaN for anything else). */
const sleepSeconds = (arg: string): number => {
  const m = /^(\d+(?:\.\d+)?)([smhd]?)$/.exec(arg)
  if (m === null) return Number.NaN
  return Number(m[1]) * ({ "": 1, s: 1, m: 60, h: 3600, d: 86400 } as const)[m[2] as "" | "s" | "m" | "h" | "d"]
}

/**
 * The seconds a command line sleeps before it looks (`sleep 30 && gh run view 42`: 30), 0 when
 * it does not wait: how long the job it polls was given between two looks.
 */
export const waitSecondsOf = (command: string): number => {
  let total = 0
  for (const tokens of simpleCommands(command)) {
    const words = unwrap(tokens)
    const program = programOf(words[0] ?? "")
    if (program === "sleep") {
      for (const arg of words.slice(1)) {
        const seconds = sleepSeconds(arg)
        if (Number.isFinite(seconds)) total += seconds
      }
    } else total += blockingWaitOf(program, words, timeoutGiven(tokens))
  }
  return total
}

/** The seconds a `timeout N` wrapper gives the command it runs (`timeout 110 gh run watch 42`: 110), else NaN. */
const timeoutGiven = (tokens: ReadonlyArray<string>): number => {
  const at = tokens.indexOf("timeout")
  if (at === -1) return Number.NaN
  const duration = tokens.slice(at + 1).find((t) => !t.startsWith("-"))
  return duration === undefined ? Number.NaN : sleepSeconds(duration)
}

/**
 * A readiness check looked at once per turn: a model's turn between two looks gives the job about
 * this long, as a short sleep would.
 */
const READINESS_LOOK_S = 30
/** kubectl's own wait when none is given (`kubectl wait`: 30 s; `rollout status` waits until done or told otherwise). */
const KUBECTL_WAIT_S = 30
/**
 * A watch that blocks until its job ends (`gh run watch`), cut short by the harness's own timeout
 * when no `timeout N` says how long: about this long, the shortest such timeout of the agents' shells.
 */
const WATCH_WAIT_S = 60

/** `gh run watch 42`, `gh pr checks 7 --watch`: a CI watch that blocks until the run ends. */
const watchesCi = (program: string, words: ReadonlyArray<string>): boolean =>
  program === "gh" && ((words[1] === "run" && words[2] === "watch") || (words[1] === "pr" && words[2] === "checks" && words.some((w) => w === "--watch")))

/**
 * The seconds a command waits on its own before it answers: `kubectl rollout status --timeout=60s`
 * and `kubectl wait` block until the job is ready or their timeout passes, as does a CI watch (`gh
 * run watch`) until its `timeout N` (`wrapperTimeout`) or the harness's cuts it; `pg_isready` looked at once a
 * turn is a readiness check. 0 for anything else.
 */
const blockingWaitOf = (program: string, words: ReadonlyArray<string>, wrapperTimeout: number): number => {
  if (program === "pg_isready") return READINESS_LOOK_S
  if (watchesCi(program, words)) return Number.isFinite(wrapperTimeout) && wrapperTimeout > 0 ? wrapperTimeout : WATCH_WAIT_S
  if (program !== "kubectl") return 0
  const rest = kubectlVerb(words)
  const blocks = (rest[0] === "rollout" && rest[1] === "status") || rest[0] === "wait"
  if (!blocks) return 0
  const at = words.findIndex((w) => w === "--timeout" || w.startsWith("--timeout="))
  const given = at === -1 ? "" : words[at]!.includes("=") ? words[at]!.slice(words[at]!.indexOf("=") + 1) : (words[at + 1] ?? "")
  const seconds = sleepSeconds(given)
  return Number.isFinite(seconds) && seconds > 0 ? seconds : KUBECTL_WAIT_S
}

/** `curl -s …/status`, `wget -qO- …`: a look at a URL that sends nothing (no data, form, upload or method). */
const isFetch = (program: string, words: ReadonlyArray<string>): boolean =>
  (program === "curl" || program === "wget") && !words.some((w) => /^(?:-[a-zA-Z]*[dFTX]|--(?:data|form|upload-file|request|json|post-data|post-file|method)\b)/.test(w))

// A deploy or cloud CLI's verb that only reports (`fly status`, `aws ecs describe-services`, `gcloud run
// services describe`, `helm status`, `argocd app get`, `rabbitmqctl list_queues`): a look, as a viewer is, so a line that sleeps
// first and then asks it polls. Alone (no sleep) it is no poll: a look, not a wait.
const STATUS_VERB = /^(?:status|describe(?:[-_][a-z_-]+)?|get(?:[-_][a-z_-]+)?|list(?:[-_][a-z_-]+)?|ls|logs?|ps|show|inspect|view|info|health|checks)$/

/**
 * The words right after a command's program, up to its first flag: does one of them ask for a
 * status? (`aws ecs describe-services --cluster …`; not `pytest tests/ -k status`, whose `status`
 * is a flag's value.)
 */
const asksStatus = (words: ReadonlyArray<string>): boolean => {
  const firstFlag = words.findIndex((w, i) => i > 0 && w.startsWith("-"))
  return words.slice(1, firstFlag === -1 ? undefined : firstFlag).slice(0, 3).some((w) => STATUS_VERB.test(w))
}

const POLLING_SUBCOMMANDS: Readonly<Record<string, ReadonlyArray<string>>> = {
  docker: ["logs", "ps", "stats", "inspect", "compose logs", "compose ps"],
  "docker-compose": ["logs", "ps"],
  podman: ["logs", "ps", "inspect"],
  kubectl: ["get", "logs", "describe", "top", "rollout status", "wait"],
  systemctl: ["status", "is-active"],
  journalctl: ["-u", "-n", "--since"],
  gh: ["run view", "run watch", "run list", "pr checks", "pr view"],
  glab: ["ci status", "ci view"]
}

/** Programs that search files for a pattern (`git grep` is spelled `git-grep` here). */
const SEARCHERS = new Set(["grep", "egrep", "fgrep", "rg", "ag", "ack", "git-grep"])

/** The searchers' flags that take the next word as their value. */
const SEARCH_VALUE_FLAGS = new Set(["-f", "-g", "--glob", "-t", "--type", "-T", "--type-not", "-A", "-B", "-C", "-m", "--max-count", "--include", "--exclude", "--exclude-dir", "--max-depth", "--context", "--after-context", "--before-context", "--ignore-dir"])

/** Words of one simple command with their quotes taken off (`'a b'` is one word). */
const wordsOf = (part: string): Array<string> =>
  [...part.matchAll(/'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? "")

/**
 * What a search command asks, whatever program and flags ask it: the pattern (case and separators
 * folded) and where (the paths, `.` when none). `grep -rn initTelemetry .`, `rg -i --hidden
 * initTelemetry` and `git grep -n 'initTelemetry'` ask one thing; `… src/` asks about another place.
 * Null for a command that runs no searcher.
 */
export const searchQuestion = (command: string): string | null => {
  for (const part of (command.split("\n", 1)[0] ?? "").split(SEPARATOR)) {
    const words = unwrap(wordsOf(part.trim()))
    let program = programOf(words[0] ?? "")
    let rest = words.slice(1)
    if (program === "git" && rest[0] === "grep") [program, rest] = ["git-grep", rest.slice(1)]
    if (!SEARCHERS.has(program)) continue
    let pattern: string | undefined
    const paths: Array<string> = []
    for (let i = 0; i < rest.length; i++) {
      const w = rest[i]!
      if (w === "-e" || w === "--regexp") pattern ??= rest[++i]
      else if (w.startsWith("-") && w.length > 1) i += SEARCH_VALUE_FLAGS.has(w) ? 1 : 0
      else if (pattern === undefined) pattern = w
      else paths.push(w)
    }
    if (pattern === undefined) return null
    const where = paths.map((p) => p.replace(/^(?:\.\/)+/, "").replace(/\/+$/, "") || ".").filter((p) => p !== ".").sort()
    return `search ${pattern.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "")} in ${where.join(" ") || "."}`
  }
  return null
}
