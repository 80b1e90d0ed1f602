/**
 * Rollback (after MiroThinker): a reply that leaked tool-call markup as text, refused, repeated
 * an already executed query, or got a useless tool result is popped (excluded from every later
 * request, kept in the store) and the step is retried without spending a turn, up to a cap of
 * consecutive rollbacks. Plain state; the RunLoop applies the decision, and the effect package's
 * `rollbackMonitors` puts the in-step checks on the stream.
 *
 * Order of checks, as in the source system: a duplicate query is judged before it runs
 * (`beforeCall`: it never runs twice), a useless result stops the step's remaining calls
 * (`afterResult`), and the loop-start cap check (`atLoopStart`) runs before every step. The step's
 * verdict (`afterStep`) then pops the reply. At the cap, a duplicate or useless result is let run.
 *
 * Evidence before force (evidence.ts): a query asked again after a file change is no duplicate
 * (the answer may differ now); a duplicate pops from its third run, or inside a loop episode; a
 * search that found nothing pops only when the same query ran before.
 */
import { toolPartsOf, type AssistantMessage, type ToolPart } from "../model/message.js"
import { recordOf } from "../loops/step-record.js"
import { checkAtLoopStart, decideRollback, initRollback, onSuccessfulTurn, DEFAULT_ROLLBACK_OPTIONS, type RollbackDecision } from "./rollback-policy.js"
import { recordExecutedInPlace, DEFAULT_DUPLICATE_QUERY_OPTIONS, type DuplicateQueryOptions } from "./duplicate-query.js"
import { detectDuplicateCall, detectReplyTrigger, detectUselessResult, type RollbackTrigger } from "./triggers.js"
import { duplicateWithEvidence, uselessWithEvidence } from "./evidence.js"

/**
 * The config fields the guard reads, as a plain type: the Effect package validates the whole
 * config with Schema and hands its value here (it satisfies this shape structurally).
 */
export interface RollbackGuardConfig {
  readonly rollback: {
    readonly enabled: boolean
    /** Consecutive rollbacks allowed before a trigger is let run or ends the loop. */
    readonly maxConsecutiveRollbacks: number
    /** Deduplicate tools the key-argument table does not list (search/fetch tools are always). */
    readonly dedupeUnlistedTools: boolean
  }
}

/** The defaults of the rollback section (the same values the full config starts from). */
export const DEFAULT_ROLLBACK_GUARD_CONFIG: RollbackGuardConfig = {
  rollback: { enabled: true, maxConsecutiveRollbacks: DEFAULT_ROLLBACK_OPTIONS.maxConsecutiveRollbacks, dedupeUnlistedTools: false }
}

/** The RunLoop's rollback triggers and cap for one run. */
export class RollbackGuard {
  private state = initRollback()
  /** Owned for the whole run and counted in place: copying it per executed call made a step cost more than the last. */
  private readonly queries: { readonly counts: Record<string, number> } = { counts: Object.create(null) as Record<string, number> }
  /** Which tools are deduplicated: the key-argument table, plus (when configured) every other tool. */
  private readonly dedupe: DuplicateQueryOptions

  constructor(
    private readonly config: RollbackGuardConfig,
    private readonly agent: string,
    /** Whether a loop episode is open (the cross-step detectors noted one): a duplicate query pops at its second run then. */
    private readonly inLoop: () => boolean = () => false
  ) {
    this.dedupe = { ...DEFAULT_DUPLICATE_QUERY_OPTIONS, unlistedTools: config.rollback.dedupeUnlistedTools ? "all" : "none" }
  }

  /** Whether a trigger now would pop the reply (below the cap); at the cap it is let run or ends the loop. */
  private wouldRollback(): boolean {
    return this.config.rollback.enabled && this.state.consecutiveRollbacks < this.config.rollback.maxConsecutiveRollbacks - 1
  }

  /** Before a call runs: the reason it must not (a duplicate of an executed query that will be rolled back), or null. */
  beforeCall(call: { readonly id: string; readonly name: string; readonly input: unknown }): string | null {
    if (!this.wouldRollback()) return null
    const dup = this.duplicate([{ id: call.id, name: call.name, arguments: call.input }])
    return dup === null ? null : `not run: duplicate of an already executed ${call.name} query (rolled back)`
  }

  /** After a call ran: the reason to run no further call of this step (a useless result that will be rolled back), or null. */
  afterResult(part: ToolPart): string | null {
    if (!this.wouldRollback()) return null
    return this.useless([part]) === null ? null : `not run: an earlier call of this step returned a useless result (rolled back)`
  }

  /** A duplicate query with evidence of a loop (`duplicateWithEvidence`). */
  private duplicate(calls: ReadonlyArray<{ readonly id: string; readonly name: string; readonly arguments: unknown }>): RollbackTrigger | null {
    return duplicateWithEvidence(detectDuplicateCall(this.queries, this.agent, calls, { duplicateQuery: this.dedupe }), this.inLoop())
  }

  /** A useless result with evidence (`uselessWithEvidence`): an empty search counts only for a query asked before. */
  private useless(parts: ReadonlyArray<ToolPart>): RollbackTrigger | null {
    const hit = detectUselessResult(parts)
    const part = hit !== null && hit.kind === "useless-result" ? parts.find((p) => p.callId === hit.callId) : undefined
    const asked = part !== undefined && detectDuplicateCall(this.queries, this.agent, [{ name: part.name, arguments: part.input }], { duplicateQuery: this.dedupe }) !== null
    return uselessWithEvidence(hit, asked)
  }

  /** The first line of defence: a loop that starts at or past the cap ends at once. */
  atLoopStart(): boolean {
    return this.config.rollback.enabled && checkAtLoopStart(this.state, { maxConsecutiveRollbacks: this.config.rollback.maxConsecutiveRollbacks }).action === "end-loop"
  }

  /** For a state carried over from elsewhere (a resumed session) or a test. */
  restore(consecutiveRollbacks: number): void {
    this.state = { consecutiveRollbacks }
  }

  /** What to do with a finished reply; null when nothing triggered (then the turn counts as good or not). */
  afterStep(reply: AssistantMessage): RollbackDecision | null {
    if (!this.config.rollback.enabled) return null
    const parts = toolPartsOf(reply)
    // Markup with finish = tool-calls is the classifier's text-tool-call (excluded + reminded);
    // rollback takes the leaks the classifier would otherwise accept as a final answer.
    const leak = detectReplyTrigger(reply)
    const trigger =
      (leak !== null && !(leak.kind === "format-leak" && reply.finish === "tool-calls") ? leak : null) ??
      this.duplicate(parts.map((p) => ({ id: p.callId, name: p.name, arguments: p.input }))) ??
      this.useless(parts)
    if (trigger === null) {
      // A file change may change any answer: a query asked again after one is no duplicate.
      // The record the other detectors make of this reply (one per message): masking its outputs again cost as much as they did.
      if (recordOf(reply).changed) this.forgetQueries()
      this.record(parts)
      const clean = parts.every((p) => p.state === "completed" && (p.exitCode ?? 0) === 0) && reply.error === undefined
      if (clean) this.state = onSuccessfulTurn(this.state)
      return null
    }
    const decision = decideRollback(this.state, trigger, { maxConsecutiveRollbacks: this.config.rollback.maxConsecutiveRollbacks })
    this.state = decision.state
    // A popped reply's calls count as not executed: only kept replies feed the duplicate record.
    if (decision.action !== "rollback") this.record(parts)
    return decision
  }

  private forgetQueries(): void {
    for (const key of Object.keys(this.queries.counts)) delete this.queries.counts[key]
  }

  private record(parts: ReadonlyArray<ToolPart>): void {
    for (const p of parts) {
      if (p.state === "completed") recordExecutedInPlace(this.queries, { agent: this.agent, tool: p.name, arguments: p.input }, this.dedupe)
    }
  }
}
