/**
 * @loopguard/core: every mechanism as pure functions and small state machines (no Effect, no I/O),
 * one namespace per mechanism, the way `effect` exports its modules:
 *
 *   import { Repeat, Retry } from "@loopguard/core"
 *   const verdict = Repeat.scanText("the same words the same words ...")
 *
 * Each namespace is also a subpath with flat names (`@loopguard/core/repeat`), which is what the
 * other loopguard packages import from.
 */
/** Stream parts, messages, exit reasons: the vocabulary every backend and detector shares; the part observer. */
export * as Model from "./model/index.js"
/** In-stream repetition: the periodic-repeat monitor, the repeat guard and `scan` (docs/repetition.md). */
export * as Repeat from "./repeat/index.js"
/** Error normalization, retry budgets and the per-attempt retry decision (docs/retry.md). */
export * as Retry from "./retry/index.js"
/** Step classification, reminders and the recovery policy. */
export * as Classify from "./classify/index.js"
/** Cost and usage caps, pricing, and the error-storm breaker. */
export * as Caps from "./caps/index.js"
/** The one run report every way out ends with. */
export * as Report from "./report/index.js"
/** Cross-step loops: text loop, repeated action, doom loop, streaks and context cropping. */
export * as Loops from "./loops/index.js"
/** Trace format v1: parsing and turning a trace into replayable steps. */
export * as Trace from "./trace/index.js"
/** Try-Best: edit-repeat, bash-retry and action-streak detection, stall signals, hand-off. */
export * as TryBest from "./try-best/index.js"
/** The goal gate's prompt and verdict, and the finish gates' feedback texts. */
export * as Gate from "./gate/index.js"
/** Rollback triggers (format leaks, refusals, duplicate queries, useless results) and the guard that applies them. */
export * as Rollback from "./rollback/index.js"
/** Tool calls written as text (XML, JSON, MCP) and argument repair. */
export * as ToolCallParsing from "./toolcall/index.js"
/** Context windows: model context sizes, token estimates and context compaction. */
export * as ContextWindow from "./context/index.js"
/** The cross-step judge: every detector that looks across steps, fed one step at a time. */
export * as Judge from "./judge/index.js"
/** The policy of one run-loop step: the run's state and a step's facts in, the next state and the actions to take out. */
export * as Step from "./step/index.js"
/** Partial settings laid over defaults and checked without a schema library. */
export * as Settings from "./settings/index.js"
