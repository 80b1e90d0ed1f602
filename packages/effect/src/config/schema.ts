/**
 * One Schema for every knob. `defaults.ts` holds the defaults (docs/config.md lists each) as a plain
 * object so the env-variable mapping can be derived from its shape.
 */
import { MAX_TIMER_MS, validateRepeatOptions } from "@loopguard/core/repeat"
import { RETRY_BUDGET_NAMES, type RetryBudgetName } from "@loopguard/core/retry"
import { ladderProblem } from "@loopguard/core/judge"
import { Schema } from "effect"

const PosInt = Schema.Int.check(Schema.isGreaterThan(0))
const NonNegInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
const Ratio = Schema.Number.check(Schema.isBetween({ minimum: 0, maximum: 1 }))
/**
 * Text where "" means nothing (a name, a command, a URL, an address): refused, as an empty
 * `LOOPGUARD_*` variable (one that expanded to nothing) would otherwise set it; null (or leaving
 * it unset) is how a knob that may be absent says so.
 */
const NonEmpty = Schema.String.check(Schema.isMinLength(1))
/** A list of names or patterns: each one non-empty. */
const Names = Schema.Array(NonEmpty)
/**
 * A list that only recognises things (tool names, patterns): empty, nothing would be recognised,
 * which switches no detector off cleanly but blinds them (`LOOPGUARD_TRY_BEST_SHELL_TOOLS=`).
 */
const SomeNames = Names.check(Schema.isMinLength(1))

/**
 * A check across a section's fields: `problem` returns the message, or null when the section is
 * fine. `field` names where the message points (the section itself when absent).
 */
const crossField = <T>(problem: (section: T) => string | null, field?: string) =>
  Schema.makeFilter<T>((section) => {
    const message = problem(section)
    if (message === null) return undefined
    return field === undefined ? message : { path: [field], issue: message }
  })

/** The long-period rule beside the short-period rule (docs/repetition.md). */
export const LongRepeatSection = Schema.Struct({
  enabled: Schema.Boolean,
  copies: Schema.Int.check(Schema.isGreaterThanOrEqualTo(2)),
  minBlockTokens: PosInt,
  minBlockChars: PosInt,
  maxBlockChars: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 100_000 })),
  minWords: NonNegInt,
  runChars: PosInt,
  shortChars: PosInt,
  recurChars: PosInt,
  whitespaceChars: Schema.Int.check(Schema.isGreaterThanOrEqualTo(2))
}).check(
  crossField((l) => (l.minBlockChars > l.maxBlockChars ? `${l.minBlockChars} is above maxBlockChars (${l.maxBlockChars})` : null), "minBlockChars")
)

/** Node and Bun timers overflow above 2^31−1 ms and then fire after 1 ms: reject such values. */
export { MAX_TIMER_MS }
const TimerMs = PosInt.check(Schema.isLessThanOrEqualTo(MAX_TIMER_MS))
const DelayMs = NonNegInt.check(Schema.isLessThanOrEqualTo(MAX_TIMER_MS))

/** Config section `repeat`: the in-stream repetition guard. */
export const RepeatSection = Schema.Struct({
  enabled: Schema.Boolean,
  window: PosInt,
  threshold: Schema.Int.check(Schema.isGreaterThanOrEqualTo(2)),
  minBlock: PosInt,
  minDistinct: PosInt,
  long: LongRepeatSection
}).check(
  // The guard's own check, so a config it would refuse at run time is refused at load (the window's
  // upper bound, room for `threshold` blocks, `minDistinct` within a block).
  Schema.makeFilter((r) => {
    const first = validateRepeatOptions(r)[0]
    return first === undefined ? undefined : { path: [first.field], issue: first.message }
  })
)

/** Config section `stream`: the chunk timeout, progress events, response limits. */
export const StreamSection = Schema.Struct({
  chunkTimeoutMs: TimerMs,
  /** Least time between two `stream.progress` events of one step (0 = one per chunk of parts). */
  progressIntervalMs: DelayMs,
  /** Bytes of one response body after decompression; past it the step ends as a protocol error. */
  maxResponseBytes: PosInt,
  /** Bytes of one server-sent event (one `data:` record). */
  maxEventBytes: PosInt,
  /** Least time between two saves of a reply's text while it streams (0 = only when the step ends). */
  persistIntervalMs: DelayMs
})

/** Config section `loop`: role, interactivity, caps, steps and timeouts. */
export const LoopSection = Schema.Struct({
  role: Schema.Literals(["main", "subagent", "checkpoint"]),
  interactive: Schema.Boolean,
  capMode: Schema.Literals(["hard", "soft", "summary", "none"]),
  maxSteps: PosInt,
  tokenBudget: Schema.NullOr(PosInt),
  costBudgetUsd: Schema.NullOr(Schema.Number.check(Schema.isGreaterThan(0))),
  toolTimeoutMs: TimerMs,
  stepTimeoutMs: Schema.NullOr(TimerMs),
  /** Whole-run wall clock; null = none. The run ends with `time_limit`. */
  maxWallMs: Schema.NullOr(TimerMs)
})

/** Config section `recovery`: bounded recoveries per kind. */
export const RecoverySection = Schema.Struct({
  lengthContinuations: NonNegInt,
  emptyRetries: NonNegInt,
  textToolCallRetries: NonNegInt,
  droppedToolCallRetries: NonNegInt,
  structuredRetries: NonNegInt
})

/** Config section `textLoop`. */
export const TextLoopSection = Schema.Struct({
  enabled: Schema.Boolean,
  bufferSize: PosInt,
  repeats: Schema.Int.check(Schema.isGreaterThanOrEqualTo(2)),
  keyChars: PosInt
})

/**
 * `repeats` identical calls in a row get a note, `remindAt` a firmer reminder, `stopAt` end the run
 * (exit `idle`; a pause with try-best on; null never stops). Every other loop detector climbs the
 * same ladder: a note when its episode starts, the reminder `remindAt − repeats` steps later, the
 * stop `stopAt − repeats` steps later, while the episode lasts.
 */
export const RepeatedActionSection = Schema.Struct({
  enabled: Schema.Boolean,
  repeats: Schema.Int.check(Schema.isGreaterThanOrEqualTo(2)),
  remindAt: Schema.Int.check(Schema.isGreaterThanOrEqualTo(2)),
  stopAt: Schema.NullOr(Schema.Int.check(Schema.isGreaterThanOrEqualTo(2)))
}).check(crossField((a) => ladderProblem({ ...a, enabled: true })))

/** Same tool, same output (numbers, quoted strings, hex ids, paths masked), `repeats` steps in a row. */
export const RepeatedObservationSection = Schema.Struct({
  enabled: Schema.Boolean,
  repeats: Schema.Int.check(Schema.isGreaterThanOrEqualTo(2)),
  /** When every one of those steps failed (the same error again), this many are enough. */
  failedRepeats: Schema.Int.check(Schema.isGreaterThanOrEqualTo(2)),
  /** Window mode: the same answer on `windowRepeats` of the last `window` steps (0 = off). */
  window: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
  windowRepeats: Schema.Int.check(Schema.isGreaterThanOrEqualTo(2))
}).check(
  crossField((o) => (o.window > 0 && o.windowRepeats > o.window ? `${o.windowRepeats} is above window (${o.window}); it could never fire` : null), "windowRepeats")
)

/** `steps` failing steps in a row (each command and error may differ), no file change between. */
export const FailureStreakSection = Schema.Struct({
  enabled: Schema.Boolean,
  steps: Schema.Int.check(Schema.isGreaterThanOrEqualTo(2))
})

/** One command skeleton with varied arguments, `repeats` tries with one masked answer within `window` steps. */
export const VariedRetrySection = Schema.Struct({
  enabled: Schema.Boolean,
  repeats: Schema.Int.check(Schema.isGreaterThanOrEqualTo(2)),
  window: Schema.Int.check(Schema.isGreaterThanOrEqualTo(2))
}).check(crossField((v) => (v.repeats > v.window ? `${v.repeats} is above window (${v.window}); it could never fire` : null), "repeats"))

/** One command failing `repeats` times with one masked error, edits between allowed, within `lookback` steps. */
export const RepeatedFailureSection = Schema.Struct({
  enabled: Schema.Boolean,
  repeats: Schema.Int.check(Schema.isGreaterThanOrEqualTo(2)),
  lookback: PosInt
})

/** The newest `minLength`+ steps replay an earlier stretch of the run (within `lookback` steps). */
export const ReplayedSequenceSection = Schema.Struct({
  enabled: Schema.Boolean,
  minLength: Schema.Int.check(Schema.isGreaterThanOrEqualTo(2)),
  lookback: PosInt
})

/** `window` steps without a file change in which `minRepeats` actions (or outputs) were seen before. */
export const NoProgressSpinSection = Schema.Struct({
  enabled: Schema.Boolean,
  window: Schema.Int.check(Schema.isGreaterThanOrEqualTo(2)),
  minRepeats: PosInt
}).check(crossField((n) => (n.minRepeats > n.window ? `${n.minRepeats} is above window (${n.window}); it could never fire` : null), "minRepeats"))

/** Beyond exact repeats: A B A B … cycles that repeated action (A A A) cannot see. */
export const ActionCycleSection = Schema.Struct({
  enabled: Schema.Boolean,
  maxPeriod: Schema.Int.check(Schema.isGreaterThanOrEqualTo(2)),
  replays: Schema.Int.check(Schema.isGreaterThanOrEqualTo(2))
})

/** Config section `doomLoop`. */
export const DoomLoopSection = Schema.Struct({
  enabled: Schema.Boolean,
  repeats: Schema.Int.check(Schema.isGreaterThanOrEqualTo(2))
})

/** The judge's reasoning-loop crop (after MiMo Code's loop-streak recovery). */
export const StreakRecoverySection = Schema.Struct({
  enabled: Schema.Boolean,
  triggerCount: Schema.Int.check(Schema.isGreaterThanOrEqualTo(2)),
  maxSpan: PosInt,
  cacheRiskBlocks: PosInt
})

/** One retry budget's fields, each optional (a patch over the defaults). */
export const RetryBudgetPatch = Schema.Struct({
  mode: Schema.optional(Schema.Literals(["bounded", "persistent"])),
  maxRetries: Schema.optional(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 100 }))),
  deadlineMs: Schema.optional(TimerMs),
  noDeadline: Schema.optional(Schema.Boolean),
  initialDelayMs: Schema.optional(DelayMs),
  maxDelayMs: Schema.optional(DelayMs),
  jitterRatio: Schema.optional(Ratio)
}).check(
  crossField((b) => (b.deadlineMs !== undefined && b.noDeadline === true ? "deadlineMs and noDeadline are mutually exclusive" : null)),
  crossField((b) =>
    b.initialDelayMs !== undefined && b.maxDelayMs !== undefined && b.initialDelayMs > b.maxDelayMs
      ? `initialDelayMs (${b.initialDelayMs}) is above maxDelayMs (${b.maxDelayMs})`
      : null
  )
)

export { RETRY_BUDGET_NAMES as BUDGET_NAMES }

/** One optional budget patch per budget name core knows (`retry.<budget>`). */
const budgetPatches = Object.fromEntries(RETRY_BUDGET_NAMES.map((name) => [name, Schema.optional(RetryBudgetPatch)])) as {
  readonly [K in RetryBudgetName]: Schema.optional<typeof RetryBudgetPatch>
}

/** Config section `retry`: one budget patch per budget name, and the section-wide knobs. */
export const RetrySection = Schema.Struct({
  ...budgetPatches,
  overloadedImmediateRetries: Schema.optional(NonNegInt),
  /** Jitter for every budget of this section that sets none (like MiMo Code's top-level `retry.jitterRatio`). */
  jitterRatio: Schema.optional(Ratio),
  /** HTTP statuses retried as server errors for this provider's adapter (404 for some). */
  retryableStatuses: Schema.optional(Schema.Array(Schema.Int.check(Schema.isBetween({ minimum: 100, maximum: 599 }))))
})

/** Config section `provider.<id>`: per-provider overrides. */
export const ProviderSection = Schema.Struct({
  retry: Schema.optional(RetrySection),
  /** This provider's longest silence between two stream chunks (like MiMo Code's per-provider chunkTimeout); default `stream.chunkTimeoutMs`. */
  chunkTimeoutMs: Schema.optional(TimerMs)
})

/** A regular expression's source; a pattern that does not compile is named with the compiler's reason. */
const RegexSource = NonEmpty.check(
  Schema.makeFilter((pattern: string) => {
    try {
      new RegExp(`^(?:${pattern})`, "i")
      return undefined
    } catch (e) {
      return `not a valid regular expression ${JSON.stringify(pattern)}: ${(e as Error).message}`
    }
  })
)

/** Try-Best (docs/try-best.md): near-identical edits, repeated failing commands, no-progress streaks. */
export const TryBestSection = Schema.Struct({
  enabled: Schema.Boolean,
  editWindow: PosInt,
  editSimilarity: Ratio,
  /** 0: near-identical edits are not reported. */
  editMatches: NonNegInt,
  /** 0: edit streaks are not reported. */
  actionStreak: NonNegInt,
  failedCommandRetries: PosInt,
  editTools: SomeNames,
  shellTools: SomeNames,
  verificationPatterns: Schema.Array(RegexSource).check(Schema.isMinLength(1)),
  onPause: Schema.Literals(["stop", "continue", "handoff:codex", "handoff:claude", "ask"]),
  maxResumes: NonNegInt,
  /** How the hand-off skills run their harness: `sandboxed` (workspace-write, no prompts) or `isolated` (no guard rails; throwaway machines only). */
  handoffMode: Schema.Literals(["sandboxed", "isolated"]),
  /** How long one hand-off skill run (one `codex exec` / `claude -p`) may take. */
  handoffTimeoutMs: TimerMs
})

/** Config section `stall`: stall signals. */
export const StallSection = Schema.Struct({
  enabled: Schema.Boolean,
  noFileChangeSteps: Schema.NullOr(PosInt),
  maxCompactions: Schema.NullOr(PosInt),
  costRatio: Schema.NullOr(Ratio),
  requiredArtefacts: Names,
  spendFlatWindow: Schema.NullOr(PosInt)
})

/** Config section `breaker`: the error-storm breaker. */
export const BreakerSection = Schema.Struct({
  enabled: Schema.Boolean,
  consecutiveFailures: PosInt,
  window: PosInt,
  failureRate: Ratio,
  minSamples: PosInt,
  recoverySuccesses: PosInt,
  /** Steps after a degrade or reroute trip in which tool calls are not run. */
  cooldownSteps: NonNegInt,
  /** Model id the reroute rung switches to (same endpoint); null = no reroute unless a FallbackLLM Layer is given. */
  fallback: Schema.NullOr(NonEmpty)
})

/** Context compaction near the model's limit (docs/run-loop.md). */
export const CompactionSection = Schema.Struct({
  enabled: Schema.Boolean,
  /** The model's context in tokens; null = from `contextSizes`, then the built-in table. */
  contextTokens: Schema.NullOr(PosInt),
  /** Compact when the next request's estimate passes this share of the context. */
  triggerRatio: Schema.Number.check(Schema.isBetween({ minimum: 0.1, maximum: 1 })),
  /** The most recent steps kept whole. */
  keepRecentSteps: PosInt,
  /** Compactions allowed in one run. */
  maxCompactions: NonNegInt,
  /** Model id (or id prefix) → context tokens, merged over the built-in table (config file only). */
  contextSizes: Schema.Record(Schema.String, PosInt),
  /** Characters of a summary kept: it is sent with every later request, so a runaway one is cut. */
  maxSummaryChars: PosInt
})

/** Child runs (the `task` tool, or a library call with `RunInput.depth`). */
export const SubagentsSection = Schema.Struct({
  /** Offer the `task` tool, which runs a sub-agent on a sub-task. */
  enabled: Schema.Boolean,
  /** Deepest nesting: a run at this depth gets no `task` tool; a library call deeper ends `depth_limit`. */
  maxDepth: NonNegInt,
  maxSteps: PosInt,
  tokenBudget: Schema.NullOr(PosInt),
  costBudgetUsd: Schema.NullOr(Schema.Number.check(Schema.isGreaterThan(0))),
  /** Share of the parent's remaining steps / tokens / cost a child may take. */
  shareOfRemaining: Schema.Number.check(Schema.isBetween({ minimum: 0.01, maximum: 1 }))
})

/** Per-tool call caps within one run. */
export const ToolCapsSection = Schema.Struct({
  maxCallsPerTool: Schema.NullOr(PosInt),
  /** Tool name → cap (config file only); wins over `maxCallsPerTool`. */
  perTool: Schema.Record(Schema.String, PosInt)
})

/** Config section `goalGate`. */
export const GoalGateSection = Schema.Struct({
  enabled: Schema.Boolean,
  maxChecks: PosInt
})

/** Config section `completionCheck`. */
export const CompletionCheckSection = Schema.Struct({
  /** A shell command; "" (or blanks) would run nothing and always pass the gate: null is "no check". */
  command: Schema.NullOr(
    Schema.String.check(
      Schema.makeFilter((c: string) => (c.trim() === "" ? "an empty command runs nothing and would always pass the completion gate; set null (or leave it unset) for no check" : undefined))
    )
  ),
  timeoutMs: TimerMs,
  maxFailures: PosInt
})

/** USD per million tokens, by model id (provider prefix dropped; dated snapshots match their base id). */
export const ModelPriceSchema = Schema.Struct({
  inputPerMTok: Schema.Number.check(Schema.isGreaterThanOrEqualTo(0)),
  outputPerMTok: Schema.Number.check(Schema.isGreaterThanOrEqualTo(0)),
  cachedInputPerMTok: Schema.optional(Schema.Number.check(Schema.isGreaterThanOrEqualTo(0)))
})

/** In-place repair (docs/rollback.md): the alias/default table is data, merged over the built-in one. */
export const RepairSection = Schema.Struct({
  enabled: Schema.Boolean,
  toolNameAliases: Schema.Record(Schema.String, Schema.String),
  tools: Schema.Record(
    Schema.String,
    Schema.Struct({
      aliases: Schema.optional(Schema.Record(Schema.String, Schema.String)),
      defaults: Schema.optional(Schema.Record(Schema.String, Schema.Unknown))
    })
  ),
  dropNullArguments: Schema.Boolean,
  fixServerNames: Schema.Boolean
})

/** Rollback of a reply that must not stand (docs/rollback.md). */
export const RollbackSection = Schema.Struct({
  enabled: Schema.Boolean,
  maxConsecutiveRollbacks: PosInt,
  /** Deduplicate tools the key-argument table does not list (search/fetch tools are always). */
  dedupeUnlistedTools: Schema.Boolean
})

/** Seed 002's failure-summary retry: after a failed run, summarise the failure and try the task again. */
export const FailureSummarySection = Schema.Struct({
  enabled: Schema.Boolean,
  /** Fresh attempts after the first one fails (each preceded by one summary request). */
  maxRetries: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 10 }))
})

/** Tool calls written in reply text (MCP-XML, `<tool_call>` JSON) that name an offered tool. */
export const TextToolCallsSection = Schema.Struct({
  /** `execute`: run them as real calls; `rollback`: treat them as leaked markup (reminded or rolled back). */
  mode: Schema.Literals(["execute", "rollback"])
})

/** Config section `store`: the durable SessionStore (docs/store.md), one writer per session by lease. */
export const StoreSection = Schema.Struct({
  leaseMs: TimerMs.check(Schema.isGreaterThanOrEqualTo(1000)),
  busyTimeoutMs: DelayMs,
  /** Deadline of one store call (read, write, lease renewal): a store that went away fails the run instead of hanging it. */
  timeoutMs: TimerMs.check(Schema.isGreaterThanOrEqualTo(1000))
})

/** The built-in tools of `loopguard run` (the shell is not a sandbox: see docs/security.md). */
export const ToolsSection = Schema.Struct({
  /** Characters of output one tool call returns (head and tail kept, the middle dropped). */
  maxOutputChars: PosInt,
  /** Environment names (`*` wildcards) removed from the shell's environment, besides LOOPGUARD_* and the key's variable. */
  envDeny: Names,
  /** When not empty, only these names reach the shell. */
  envAllow: Names,
  /** Variables that look like credentials (by name or a URL with a password) but must reach the shell. */
  envPass: Names,
  /** Ask on the terminal before each shell command; without a terminal every command is refused. */
  approveCommands: Schema.Boolean,
  /**
   * What `loopguard chat` offers as a shell when `approveCommands` is off: `ask` (on a terminal, ask
   * at the start; without one, as `run`), `run` (run commands without asking), `approve` (ask
   * before each command), `off` (no shell tool).
   */
  chatShell: Schema.Literals(["ask", "run", "approve", "off"])
})

/** Reading line-oriented input (`audit` traces, `scan --jsonl`): one line's bytes are capped. */
export const InputSection = Schema.Struct({
  /** Bytes kept of one input line; a longer line keeps its beginning and is reported with its size. */
  maxLineBytes: PosInt
})

/** `loopguard audit`: how much of a replayed session it holds. */
export const AuditSection = Schema.Struct({
  /** Recorded replies the replay store keeps; never fewer than the detectors' own look-back needs. */
  windowSteps: PosInt
})

/** One route of `loopguard proxy`: where requests for a model (or a path prefix) go, and whose retry budgets they use. */
export const ProxyRoute = Schema.Struct({
  /** The upstream base URL as an agent would be given it (`http://host:port/v1`). */
  upstream: NonEmpty,
  /** A `provider.<id>` section whose retry budgets (and chunk timeout) apply to this upstream. */
  provider: Schema.optional(NonEmpty),
  /** A config file whose detector settings (`repeat`, `repeatedAction`, …) apply to this route instead of this file's. */
  config: Schema.optional(NonEmpty),
  /**
   * The environment variable holding this route's upstream key, which the proxy adds itself (clients
   * then present the proxy token). Without it a route to another origin than `proxy.upstream` is
   * never sent the key held for `proxy.upstream`.
   */
  keyEnv: Schema.optional(NonEmpty)
})

/** Headers that carry something else than a session's name: naming the session by one would show a key as an id. */
const RESERVED_SESSION_HEADERS = new Set(["authorization", "proxy-authorization", "x-api-key", "x-goog-api-key", "api-key", "cookie", "host", "content-type", "content-length", "connection", "transfer-encoding"])

/** The session header's name: an HTTP header name (RFC 9110 token) that is not one of the reserved ones. */
const SessionHeaderName = Schema.String.check(
  Schema.makeFilter((name: string) =>
    !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)
      ? `not an HTTP header name: ${JSON.stringify(name)}`
      : RESERVED_SESSION_HEADERS.has(name.toLowerCase())
        ? `${name} carries something else (a credential, the body's framing); name the session by a header of its own, such as x-loopguard-session`
        : undefined
  )
)

/** Config section `proxy`: `loopguard proxy` (docs/proxy.md). */
/** The most processes `proxy.workers` may ask for, "auto" included. */
export const MAX_PROXY_WORKERS = 64

export const ProxySection = Schema.Struct({
  /** HOST:PORT the proxy listens on (`--listen`). */
  listen: NonEmpty,
  /** The default upstream base URL (`--upstream`); null: only the routes. */
  upstream: Schema.NullOr(NonEmpty),
  /** The request header that names a conversation's session; without it, a hash of the system prompt and first user message does. */
  sessionHeader: SessionHeaderName,
  /** Bytes of one request body the proxy reads; a larger one is refused with 413. */
  maxRequestBytes: PosInt,
  /**
   * Milliseconds a client has to send a request's whole body once its headers came; a body still
   * coming then is refused with 408 (a client that stalls mid-upload does not hold a request open).
   */
  requestBodyTimeoutMs: TimerMs,
  /** Tool calls written as text (in a form loopguard parses) become structured calls when the request offered that tool. */
  textToolCalls: Schema.Boolean,
  /**
   * In a request that offers no tools, an action written in a reply (a fenced shell block, an XML
   * function: mini-SWE-agent, SWE-agent) and the user message after it are judged as a call and its result.
   */
  textActions: Schema.Boolean,
  /** The environment variable holding an upstream key the proxy adds itself (null: clients send their own). */
  upstreamKeyEnv: Schema.NullOr(NonEmpty),
  /** Web page origins (`https://app.example`) whose requests are served besides loopback ones; "*": any. A request from any other page is refused. */
  allowedOrigins: Names,
  /** The environment variable holding the token clients must present when the proxy holds the upstream key. */
  tokenEnv: NonEmpty,
  /** Model name prefix (or a path prefix starting with `/`) → route; the longest match wins, else `upstream`. */
  routes: Schema.Record(Schema.String, ProxyRoute),
  /**
   * Processes serving the address (`--workers`): more than one spreads the connections over the
   * machine's cores (Linux). "auto": one per core this process may run on (at most 64), or 1 where
   * processes cannot share a port.
   */
  workers: Schema.Union([Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: MAX_PROXY_WORKERS })), Schema.Literal("auto")]).annotate({
    expected: `a whole number from 1 to ${MAX_PROXY_WORKERS}, or "auto"`
  }),
  /**
   * Steps (replies) one user turn may take through the proxy: the last one is asked for with tools
   * off and the soft-cap notice, a request past it is answered with a stop. null: no cap.
   */
  maxTurnSteps: Schema.NullOr(PosInt)
})

/** The whole config as one Schema; `LoopguardConfig` is its type. */
export const LoopguardConfigSchema = Schema.Struct({
  repeat: RepeatSection,
  stream: StreamSection,
  loop: LoopSection,
  recovery: RecoverySection,
  textLoop: TextLoopSection,
  repeatedAction: RepeatedActionSection,
  actionCycle: ActionCycleSection,
  repeatedObservation: RepeatedObservationSection,
  repeatedFailure: RepeatedFailureSection,
  variedRetry: VariedRetrySection,
  failureStreak: FailureStreakSection,
  replayedSequence: ReplayedSequenceSection,
  noProgressSpin: NoProgressSpinSection,
  doomLoop: DoomLoopSection,
  rollback: RollbackSection,
  repair: RepairSection,
  textToolCalls: TextToolCallsSection,
  failureSummary: FailureSummarySection,
  loopStreakRecovery: StreakRecoverySection,
  retry: RetrySection,
  provider: Schema.Record(Schema.String, ProviderSection),
  tryBest: TryBestSection,
  stall: StallSection,
  breaker: BreakerSection,
  compaction: CompactionSection,
  subagents: SubagentsSection,
  toolCaps: ToolCapsSection,
  goalGate: GoalGateSection,
  completionCheck: CompletionCheckSection,
  store: StoreSection,
  tools: ToolsSection,
  input: InputSection,
  audit: AuditSection,
  proxy: ProxySection,
  /** Merged over the built-in list prices; used for the cost cap and the report. */
  prices: Schema.Record(Schema.String, ModelPriceSchema)
})

export type LoopguardConfig = typeof LoopguardConfigSchema.Type
export type RetryBudgetPatch = typeof RetryBudgetPatch.Type
export type RetrySection = typeof RetrySection.Type
