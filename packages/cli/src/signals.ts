/**
 * SIGINT and SIGTERM for the `loopguard` process. The first signal asks for a graceful end: a
 * command that registered a canceller (`run`) cancels its run — the step and its tools are
 * interrupted and the report printed — and any other command is interrupted. The process then
 * exits 130 (SIGINT) or 143 (SIGTERM) whatever the command's own status. A second signal quits
 * at once.
 *
 * Once the command has ended (its report printed, its finalizers run) the process exits, once
 * stdout and stderr have been flushed: nothing left behind keeps it alive — a detached process
 * the shell tool started (`setsid cmd &`, which belongs to the user), a socket to a database
 * that stopped answering.
 *
 * A reader of stdout that goes away (`loopguard run --json | head -1`) is handled the same way
 * under the name SIGPIPE: nothing more is printed, the run is cancelled, and the process exits
 * 141 (128 + SIGPIPE, what a shell reports for a command ended by a broken pipe), with no trace.
 */
import { Runtime } from "effect"

export const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143, SIGPIPE: 141 } as const
export type HandledSignal = keyof typeof SIGNAL_EXIT_CODES

let canceller: ((signal: HandledSignal) => void) | null = null

/** While registered, the first signal calls `cancel` instead of interrupting the command; returns the unregister. */
export const onFirstSignal = (cancel: (signal: HandledSignal) => void): (() => void) => {
  canceller = cancel
  return () => {
    if (canceller === cancel) canceller = null
  }
}

/** Exits with `status` once everything written to stdout and stderr so far has been handed on. */
const exitAfterFlush = (status: number): void => {
  process.stdout.write("", () => process.stderr.write("", () => process.exit(status)))
}

/** True for the error a write gets once the reading end of its pipe is closed. */
export const isBrokenPipe = (error: unknown): boolean =>
  typeof error === "object" && error !== null && (error as { code?: unknown }).code === "EPIPE"

/**
 * From the first broken-pipe error on, stdout writes are dropped: every later write would fail the
 * same way, and what the command still prints (the report) has no reader.
 */
const silenceStdout = (): void => {
  process.stdout.write = ((..._args: Array<unknown>) => true) as typeof process.stdout.write
}

export const runMainWithSignals = Runtime.makeRunMain(({ fiber, teardown }) => {
  let received: HandledSignal | null = null
  const onSignal = (signal: HandledSignal) => {
    if (received !== null) process.exit(SIGNAL_EXIT_CODES[received])
    received = signal
    if (canceller !== null) canceller(signal)
    else fiber.interruptUnsafe(fiber.id)
  }
  const onInt = () => onSignal("SIGINT")
  const onTerm = () => onSignal("SIGTERM")
  const onStdoutError = (error: unknown) => {
    if (!isBrokenPipe(error)) throw error
    silenceStdout()
    // Later write errors are the same closed pipe, not a second request to quit at once.
    if (received === null) onSignal("SIGPIPE")
  }
  process.on("SIGINT", onInt)
  process.on("SIGTERM", onTerm)
  process.stdout.on("error", onStdoutError)
  fiber.addObserver((exit) => {
    process.removeListener("SIGINT", onInt)
    process.removeListener("SIGTERM", onTerm)
    teardown(exit, (code) => {
      if (received !== null) process.exit(SIGNAL_EXIT_CODES[received])
      const status = code !== 0 ? code : Number(process.exitCode ?? 0)
      exitAfterFlush(status)
    })
  })
})
