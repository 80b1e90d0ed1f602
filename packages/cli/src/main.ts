#!/usr/bin/env node
/**
 * The `loopguard` command. Exit status: 0 success, 1 a run aborted / an audit file failed,
 * 2 bad flags or input (the message names the flag or file:line), 130 / 143 after SIGINT / SIGTERM.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import type { SessionStoreError } from "@loopguard/effect"
import { Effect } from "effect"
import { CliConfig, CliOutput, Command, GlobalFlag } from "effect/cli"
import { isParseError, oneLinePresenter } from "./cli-output.js"
import { chatCommand } from "./commands/chat.js"
import { demoCommand } from "./commands/demo.js"
import { runCommand } from "./commands/run.js"
import { auditCommand } from "./commands/audit.js"
import { scanCommand } from "./commands/scan.js"
import { sessionsCommand } from "./commands/sessions.js"
import { proxyCommand } from "./commands/proxy.js"
import { RunFailed, UsageError } from "./errors.js"
import { fsErrorWords } from "./session-dir.js"
import { storeExitCode } from "./store-target.js"
import { runMainWithSignals } from "./signals.js"
import { VERSION } from "./version.js"
import { makeRedactor } from "@loopguard/core/try-best"
import { pgSecrets, redactUrl } from "@loopguard/effect/store"
import { terminalSafe } from "./render/terminal-safe.js"

/** The value given to `--store` (`--store URL` or `--store=URL`), whose password must not be printed. */
const storeArgument = (argv: ReadonlyArray<string>): string => {
  const i = argv.indexOf("--store")
  if (i >= 0) return argv[i + 1] ?? ""
  return argv.find((a) => a.startsWith("--store="))?.slice("--store=".length) ?? ""
}

const redactLine = makeRedactor([process.env["OPENAI_API_KEY"], process.env["LOOPGUARD_API_KEY"], ...pgSecrets(storeArgument(process.argv), process.env)])
/** Every error line: no secret, no store password, nothing the terminal would take as a command (ids and paths are the user's or the store's). */
const redactForStderr = (line: string): string => terminalSafe(redactUrl(redactLine(line)))

const root = Command.make("loopguard").pipe(
  Command.withDescription("Keep LLM agent loops from spinning and from falling over"),
  Command.withSubcommands([demoCommand, runCommand, chatCommand, scanCommand, auditCommand, sessionsCommand, proxyCommand])
)

const program = Command.run(root, { version: VERSION }).pipe(
  Effect.catchTag("UsageError", (e: UsageError) =>
    Effect.sync(() => {
      process.stderr.write(`loopguard: ${redactForStderr(e.message)}\n`)
      process.exitCode = 2
    })
  ),
  // A store failure that no command turned into an exit status: still one line, never a trace.
  Effect.catchTag("SessionStoreError", (e: SessionStoreError) =>
    Effect.sync(() => {
      process.stderr.write(`loopguard: ${redactForStderr(e.message)}\n`)
      process.exitCode = storeExitCode(e)
    })
  ),
  Effect.catchTag("RunFailed", (e: RunFailed) =>
    Effect.sync(() => {
      if (e.message) process.stderr.write(`loopguard: ${redactForStderr(e.message)}\n`)
      process.exitCode = e.exitCode
    })
  ),
  // The presenter already printed the one line; a parse error is bad usage, exit status 2.
  Effect.catchIf(isParseError, () => Effect.sync(() => void (process.exitCode = 2))),
  // Anything unexpected is one line, never a stack trace; the key and credentials are redacted.
  Effect.catchDefect((defect) =>
    Effect.sync(() => {
      const message = defect instanceof Error ? defect.message : String(defect)
      // A full or read-only disk mid-run is the user's to fix, not a bug: say it in words.
      const words = fsErrorWords(defect)
      const line = words !== undefined ? `${words} (${message})` : `internal error: ${message}`
      process.stderr.write(`loopguard: ${redactForStderr(line)}\n`)
      process.exitCode = 1
    })
  ),
  Effect.provide(CliOutput.layerPresenter(oneLinePresenter)),
  // The wizard is not offered (see below), so the help does not list it.
  Effect.provide(CliConfig.layer({ builtIns: GlobalFlag.BuiltIns.filter((flag) => flag !== GlobalFlag.Wizard) })),
  Effect.provide(NodeServices.layer)
)

// The CLI framework's wizard asks its questions on a terminal the commands do not own: a closed pipe
// became an internal error and a cancelled wizard exit 0. Not offered; the help says what to type.
if (process.argv.slice(2).some((a) => a === "--wizard" || a.startsWith("--wizard="))) {
  process.stderr.write("loopguard: --wizard is not supported; `loopguard COMMAND --help` lists the flags\n")
  process.exitCode = 2
} else runMainWithSignals(program as Effect.Effect<void, unknown>, { disableErrorReporting: false })

