/**
 * Rollback (after MiroThinker): a reply that leaked tool-call markup as text, refused, repeated
 * an already executed query, or got a useless tool result is popped (excluded from every later
 * request, kept in the store) and the step is retried without spending a turn, up to a cap of
 * consecutive rollbacks. Plain state; the RunLoop applies the decision.
 *
 * Order of checks, as in the source system: a duplicate query is judged before it runs
 * (`beforeCall`: it never runs twice), a useless result stops the step's remaining calls
 * (`afterResult`), and the loop-start cap check (`atLoopStart`) runs before every step. The step's
 * verdict (`afterStep`) then pops the reply. At the cap, a duplicate or useless result is let run.
 *
 * Evidence before force (`@loopguard/core/rollback` evidence.ts): a query asked again after a
 * file change is no duplicate (the answer may differ now); a duplicate pops from its third run, or
 * inside a loop episode; a search that found nothing pops only when the same query ran before.
 */
import { toolPartsOf, type AssistantMessage } from "@loopguard/core/model"
import {
  checkAtLoopStart,
  decideRollback,
  detectDuplicateCall,
  detectReplyTrigger,
  detectUselessResult,
  initRollback,
  onSuccessfulTurn,
  recordExecutedInPlace,
  DEFAULT_DUPLICATE_QUERY_OPTIONS,
  duplicateWithEvidence,
  uselessWithEvidence,
  type DuplicateQueryOptions,
  type RollbackTrigger,
  type RollbackDecision
} from "@loopguard/core/rollback"
import { stepRecordOf } from "@loopguard/core/loops"
import type { LoopguardConfig } from "../config/schema.js"
import type { MonitorFactory } from "../processor/monitors.js"

/** The RunLoop's rollback triggers and cap for one run. */
export class RollbackGuard {
  private state = initRollback()
  /** Owned for the whole run and counted in place: copying it per executed call made a step cost more than the last. */
  private readonly queries: { readonly counts: Record<string, number> } = { counts: Object.create(null) as Record<string, number> }
  /** Which tools are deduplicated: the key-argument table, plus (when configured) every other tool. */
  private readonly dedupe: DuplicateQueryOptions

  constructor(
    private readonly config: LoopguardConfig,
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
  afterResult(part: ReturnType<typeof toolPartsOf>[number]): string | null {
    if (!this.wouldRollback()) return null
    return this.useless([part]) === null ? null : `not run: an earlier call of this step returned a useless result (rolled back)`
  }

  /** A duplicate query with evidence of a loop (`duplicateWithEvidence`). */
  private duplicate(calls: ReadonlyArray<{ readonly id: string; readonly name: string; readonly arguments: unknown }>): RollbackTrigger | null {
    return duplicateWithEvidence(detectDuplicateCall(this.queries, this.agent, calls, { duplicateQuery: this.dedupe }), this.inLoop())
  }

  /** A useless result with evidence (`uselessWithEvidence`): an empty search counts only for a query asked before. */
  private useless(parts: ReadonlyArray<ReturnType<typeof toolPartsOf>[number]>): RollbackTrigger | null {
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
      if (stepRecordOf(reply).changed) this.forgetQueries()
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

  private record(parts: ReturnType<typeof toolPartsOf>): void {
    for (const p of parts) {
      if (p.state === "completed") recordExecutedInPlace(this.queries, { agent: this.agent, tool: p.name, arguments: p.input }, this.dedupe)
    }
  }
}

/** Rollback's in-step checks, in order: a duplicate never runs, a useless result stops the rest. Off in shadow mode. */
export const rollbackMonitors = (guard: RollbackGuard, shadow: boolean): ReadonlyArray<MonitorFactory> =>
  shadow
    ? []
    : [
        () => ({
          name: "rollback",
          beforeTool: (call) => {
            const reason = guard.beforeCall(call)
            return reason === null ? null : { outcome: "halt", monitor: "duplicate-query", reason }
          },
          onToolFinished: (part) => {
            const reason = guard.afterResult(part)
            return reason === null ? null : { outcome: "halt", monitor: "useless-result", reason }
          }
        })
      ]
