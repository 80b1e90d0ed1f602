import { Data } from "effect"

/** Bad flags or bad input: printed as one clear message, exit status 2. */
export class UsageError extends Data.TaggedError("UsageError")<{ readonly message: string }> {}

/** The run ended without success (aborted, paused, audit found a bad file): exit status 1. */
export class RunFailed extends Data.TaggedError("RunFailed")<{ readonly message: string; readonly exitCode: number }> {}
