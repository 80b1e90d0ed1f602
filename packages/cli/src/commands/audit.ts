/**
 * `loopguard audit FILE... [--json] [--format F] [--html OUT]`: replay recorded runs (trace v1, or
 * an agent's own log: Claude Code, Codex CLI, OpenCode, Gemini CLI, Qwen Code, pi, SWE-agent)
 * through the real RunLoop in shadow mode and report every incident. A file that cannot be read or
 * parsed is reported as failed (naming file:line) and the others are still audited; any failed file
 * makes the exit status 1. `-` is a log on stdin (named `stdin`), a folder stands for the logs in
 * it, OpenCode's (or Kilo's) database for its sessions, one run each. `--html` writes each run as a
 * page (docs/audit.md); on a terminal a progress line runs on stderr.
 */
import { auditConfig, auditFile, spoolOpenCodeSession, type AuditProgress, type AuditResult } from "@loopguard/effect/audit"
import type { LoopguardConfig } from "@loopguard/effect"
import type { TraceFormat } from "@loopguard/core/trace"
import { Console, Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { textFlag } from "../text-flag.js"
import { RunFailed, UsageError } from "../errors.js"
import { loadCliConfig } from "../session.js"
import { humanBlock, overallSummary, toJsonLine } from "../audit/format.js"
import { formatFlag } from "../audit/format-flag.js"
import { htmlTarget, indexRow, prepareTarget, refuseOverwritingInputs, writeIndex, writeRunPage, type HtmlTarget } from "../audit/html-output.js"
import { expandInputs, isDir, LOG_KINDS } from "../audit/inputs.js"
import { auditRuns, pageKey, type AuditRun } from "../audit/runs.js"
import { ProgressLine } from "../audit/progress.js"
import { isPipe, spoolPipe, spoolStdin, STDIN_ARG } from "../audit/stdin-trace.js"
import { wantsFolder } from "../html/page-files.js"
import { logRedactor } from "../render/env-secrets.js"
import { terminalSafeField } from "../render/terminal-safe.js"
import { redactDeep } from "@loopguard/core/try-best"
import type { IndexRow } from "../html/index-page.js"

interface OneFile {
  readonly run: AuditRun
  readonly k: number
  readonly format: TraceFormat | undefined
  readonly config: LoopguardConfig
  readonly html: HtmlTarget | undefined
  readonly progress: AuditProgress | undefined
  /** The secrets redactor, applied to the log before the detectors quote it. */
  readonly redact: (text: string) => string
}

/**
 * Audits one run (and writes its page); stdin, and a session of a database, are spooled to a file
 * for the time both take.
 */
const auditOne = (o: OneFile) => {
  const run = (path: string, name: string, format: TraceFormat | undefined) =>
    Effect.gen(function* () {
      const result = yield* auditFile({ path, name, format, redact: keepingName(o.redact, name) }, o.config, o.progress)
      const row = o.html === undefined ? undefined : yield* writeRunPage(o.html, o.k, result, path, o.config.input.maxLineBytes)
      return { result, row }
    })
  const r = o.run
  switch (r._tag) {
    case "unreadable": {
      const result: AuditResult = { _tag: "failed", file: r.name, errors: [r.error] }
      return Effect.succeed({ result, row: o.html === undefined ? undefined : indexRow(result, undefined) })
    }
    case "stored":
      return Effect.scoped(
        Effect.flatMap(Effect.result(spoolOpenCodeSession(r.db, r.id)), (spooled) => {
          if (spooled._tag === "Success") return run(spooled.success, r.name, "opencode")
          const result: AuditResult = { _tag: "failed", file: r.name, errors: [spooled.failure] }
          return Effect.succeed({ result, row: o.html === undefined ? undefined : indexRow(result, undefined) })
        })
      )
    case "file":
      if (r.file === STDIN_ARG) return Effect.scoped(Effect.flatMap(spoolStdin, (s) => run(s.path, s.name, o.format)))
      return isPipe(r.file) ? Effect.scoped(Effect.flatMap(spoolPipe(r.file), (s) => run(s.path, s.name, o.format))) : run(r.file, r.file, o.format)
  }
}

/**
 * `redact` that leaves the run's name alone wherever it appears (the file, and the database of a
 * DB#SESSION run): the name is the person's own, given or found in a folder they named, not the
 * log's, and a temporary folder's random name must not read as a token.
 */
export const keepingName = (redact: (text: string) => string, name: string) => {
  const names = [...new Set([name, name.split("#")[0]!])].filter((n) => n !== "").sort((a, b) => b.length - a.length)
  return (text: string): string => {
    // The text is redacted whole, each name standing as a plain word: cut at the name, a command's
    // password after it (`mysql --defaults-extra-file=/dev/stdin -u root -pX`) was read apart from its command.
    let held = text
    names.forEach((n, i) => (held = standingFor(held, n, NAME_MARKS[i]!)))
    let out = redact(held)
    names.forEach((n, i) => (out = out.split(NAME_MARKS[i]!).join(n)))
    return out
  }
}

/** Words that stand for the run's names while the text is redacted: letters alone, read as no secret. */
const NAME_MARKS = ["lgrunnamemarka", "lgrunnamemarkb"]

/**
 * `text` with `name` replaced by `mark` where it stands on its own (no letter, digit or `_` against
 * either end): inside a longer word (`log` in `docker login`) it is that word's, and stays.
 */
const standingFor = (text: string, name: string, mark: string): string => {
  let out = ""
  let from = 0
  for (let at = text.indexOf(name); at !== -1; at = text.indexOf(name, at + name.length)) {
    const alone = !/\w/.test(text[at - 1] ?? "") && !/\w/.test(text[at + name.length] ?? "")
    out += text.slice(from, at) + (alone ? mark : name)
    from = at + name.length
  }
  return out + text.slice(from)
}

/**
 * Prints a finished file: its JSON line (notes to stderr beside it) or its human block. What a log
 * holds is the agent's (or whoever wrote to it): secrets in it are redacted as on the page, and no
 * escape sequence or line break of it reaches the terminal raw.
 */
const printResult = (found: AuditResult, json: boolean, redact: (text: string) => string) =>
  Effect.gen(function* () {
    const r = redactDeep(found, keepingName(redact, found.file))
    if (!json) return yield* Console.log(humanBlock(r).map(terminalSafeField).join("\n"))
    yield* Console.log(toJsonLine(r))
    // The JSON object's keys are a contract; notes (a line cut at input.maxLineBytes, an orphan result, a record a reader could not map) go beside it.
    if (r._tag === "audited") for (const n of r.notes) yield* Console.error(`note: ${terminalSafeField(n)}`)
  })

const makeProgress = (runs: ReadonlyArray<AuditRun>, json: boolean): ProgressLine | undefined =>
  json || process.stderr.isTTY !== true ? undefined : new ProgressLine(runs.length, runs.reduce((n, r) => n + r.bytes, 0), (s) => void process.stderr.write(s))

export const auditCommand = Command.make(
  "audit",
  {
    files: Argument.String("file").pipe(
      Argument.variadic({ min: 1 }),
      Argument.withDescription("log files: trace v1, or Claude Code / Codex CLI / OpenCode / Gemini CLI / Qwen Code / pi / SWE-agent logs; OpenCode's or Kilo's database (opencode.db, kilo.db) for its sessions; a folder stands for the logs in it; - reads one from stdin")
    ),
    json: Flag.Boolean("json").pipe(Flag.withDefault(false), Flag.withDescription("print one JSON object per file per line")),
    format: formatFlag,
    html: textFlag("html").pipe(Flag.optional, Flag.withDescription("write the run as a self-contained HTML page to OUT (several runs or a folder: OUT is a folder of pages with index.html)")),
    config: textFlag("config").pipe(Flag.optional, Flag.withDescription("config file (thresholds, tool-name lists); every detector is switched on regardless"))
  },
  (flags) =>
    Effect.gen(function* () {
      const base = yield* loadCliConfig(Option.isSome(flags.config) ? { configPath: flags.config.value } : {})
      const config = auditConfig(base)
      const redact = logRedactor()
      const inputs = expandInputs(flags.files)
      for (const s of inputs.skipped) yield* Console.error(`note: ${terminalSafeField(s.path)}: ${s.why}; not audited`)
      if (inputs.files.length === 0) return yield* new UsageError({ message: `audit: no logs (${LOG_KINDS}) in ${flags.files.join(", ")}` })
      for (const d of inputs.emptyFolders) yield* Console.error(`note: ${terminalSafeField(d)}: no logs (${LOG_KINDS}) in this folder; nothing audited there`)
      const format = Option.getOrUndefined(flags.format)
      const runs = yield* auditRuns(inputs.files, format)
      const html = Option.isSome(flags.html) ? htmlTarget(flags.html.value, wantsFolder(flags.html.value, runs.length, inputs.folder, isDir(flags.html.value)), runs.map(pageKey)) : undefined
      if (html !== undefined) yield* refuseOverwritingInputs(html, inputs.files.filter((f) => f !== STDIN_ARG))
      if (html !== undefined) yield* prepareTarget(html)
      const progress = makeProgress(runs, flags.json)
      const results: Array<AuditResult> = []
      const rows: Array<IndexRow> = []
      for (const [k, run] of runs.entries()) {
        progress?.fileStarted(run.bytes)
        const one = yield* auditOne({ run, k, format, config, html, progress: progress && ((i, n) => progress.step(i, n)), redact })
        progress?.fileDone(one.result._tag === "audited" ? one.result.steps : 0)
        progress?.clear()
        results.push(one.result)
        if (one.row !== undefined) rows.push(one.row)
        if (html !== undefined && one.result._tag === "failed") yield* Console.error(`--html: no page for ${terminalSafeField(one.result.file)}: its audit failed`)
        // Print as each file finishes, so a long batch shows where it is.
        yield* printResult(one.result, flags.json, redact)
      }
      progress?.clear()
      if (html !== undefined) yield* writeIndex(html, rows)
      if (!flags.json) yield* Console.log(overallSummary(results))
      const failed = results.filter((r) => r._tag === "failed").length
      if (failed > 0) return yield* new RunFailed({ message: `audit: ${failed} of ${results.length} files failed`, exitCode: 1 })
    })
).pipe(Command.withDescription("Replay recorded runs (trace v1 or an agent's own log) through the RunLoop in shadow mode and report every incident"))
