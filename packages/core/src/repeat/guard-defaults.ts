/**
 * The defaults of the `repeat` config section (both in-stream rules, switched on) and of the
 * chunk timeout, kept here so an entry that loads no Effect (the AI SDK middleware) and the
 * config service start from the same numbers.
 */
import { DEFAULT_LONG_REPEAT_OPTIONS, type LongRepeatOptions } from "./long-repeat-options.js"
import { DEFAULT_REPEAT_OPTIONS, type RepeatOptions } from "./repeat-options.js"

/** The `repeat` config section: the short-period rule, the long-period rule, and the switch. */
export interface RepeatSettings extends RepeatOptions {
  readonly enabled: boolean
  readonly long: LongRepeatOptions
}

export const DEFAULT_REPEAT_SETTINGS: RepeatSettings = { enabled: true, ...DEFAULT_REPEAT_OPTIONS, long: DEFAULT_LONG_REPEAT_OPTIONS }

/** Longest silence allowed before a stream's first part and between two parts (config `stream.chunkTimeoutMs`). */
export const DEFAULT_CHUNK_TIMEOUT_MS = 480_000

/** The `stream` config section; the middleware reads its chunk timeout and accepts the rest (a loaded config passes as it is). */
export interface StreamLimits {
  readonly chunkTimeoutMs: number
  readonly progressIntervalMs: number
  readonly maxResponseBytes: number
  readonly maxEventBytes: number
}

export const DEFAULT_STREAM_LIMITS: StreamLimits = {
  chunkTimeoutMs: DEFAULT_CHUNK_TIMEOUT_MS,
  progressIntervalMs: 100,
  maxResponseBytes: 64 * 1024 * 1024,
  maxEventBytes: 4 * 1024 * 1024
}

/** Node and Bun timers overflow above 2^31−1 ms and then fire after 1 ms: longer timeouts are refused. */
export const MAX_TIMER_MS = 2_147_483_647
