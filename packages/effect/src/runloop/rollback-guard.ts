/**
 * Rollback (SPEC §7, MiroThinker): a reply that leaked tool-call markup as text, refused, repeated
 * an already executed query, or got a useless tool result is popped (excluded from every later
 * request, kept in the store) and the step is retried without spending a turn, up to a cap of
 * consecutive rollbacks. Plain state; the RunLoop applies the decision.
 *
 * One difference from the source system: duplicate queries are judged after the step, from the
 * executed calls, so the duplicate did run once more; its result is dropped with the reply.
 */
import { toolPartsOf, type AssistantMessage } from "@loopguard/core/model"
import {
  decideRollback,
  detectDuplicateCall,
  detectReplyTrigger,
  detectUselessResult,
  initDuplicateQueries,
  initRollback,
  onSuccessfulTurn,
  recordExecuted,
  DEFAULT_DUPLICATE_QUERY_OPTIONS,
  type DuplicateQueryOptions,
  type RollbackDecision
} from "@loopguard/core/rollback"
import type { LoopguardConfig } from "../config/schema.js"

/** The RunLoop's rollback triggers and cap for one run. */
export class RollbackGuard {
  private state = initRollback()
  private queries = initDuplicateQueries()
  /** Which tools are deduplicated: the key-argument table, plus (when configured) every other tool. */
  private readonly dedupe: DuplicateQueryOptions

  constructor(
    private readonly config: LoopguardConfig,
    private readonly agent: string
  ) {
    this.dedupe = { ...DEFAULT_DUPLICATE_QUERY_OPTIONS, unlistedTools: config.rollback.dedupe_unlisted_tools ? "all" : "none" }
  }

  /** What to do with a finished reply; null when nothing triggered (then the turn counts as good or not). */
  afterStep(reply: AssistantMessage): RollbackDecision | null {
    if (!this.config.rollback.enabled) return null
    const parts = toolPartsOf(reply)
    // Markup with finish = tool-calls is the classifier's text-tool-call (excluded + reminded, SPEC §2);
    // rollback takes the leaks the classifier would otherwise accept as a final answer.
    const leak = detectReplyTrigger(reply)
    const trigger =
      (leak !== null && !(leak.kind === "format-leak" && reply.finish === "tool-calls") ? leak : null) ??
      detectDuplicateCall(this.queries, this.agent, parts.map((p) => ({ id: p.callId, name: p.name, arguments: p.input })), {
        duplicateQuery: this.dedupe
      }) ??
      detectUselessResult(parts)
    if (trigger === null) {
      this.record(parts)
      const clean = parts.every((p) => p.state === "completed" && (p.exitCode ?? 0) === 0) && reply.error === undefined
      if (clean) this.state = onSuccessfulTurn(this.state)
      return null
    }
    const decision = decideRollback(this.state, trigger, { maxConsecutiveRollbacks: this.config.rollback.max_consecutive_rollbacks })
    this.state = decision.state
    // A popped reply's calls count as not executed: only kept replies feed the duplicate record.
    if (decision.action !== "rollback") this.record(parts)
    return decision
  }

  private record(parts: ReturnType<typeof toolPartsOf>): void {
    for (const p of parts) {
      if (p.state === "completed") this.queries = recordExecuted(this.queries, { agent: this.agent, tool: p.name, arguments: p.input }, this.dedupe)
    }
  }
}
