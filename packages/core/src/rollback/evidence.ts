/**
 * Evidence before force for rollback: popping a reply rewrites what the agent saw, so a trigger
 * that may also be healthy exploration pops only with evidence of a loop.
 *
 * - A duplicate query pops from its third run on (the same question asked twice already), or at
 *   its second while a loop episode is open. Asked once more after a while, it is rereading.
 *   (The caller forgets earlier queries when a file changes: the answer may differ since.)
 * - A search that found nothing pops only when that same query was asked before: a new query
 *   that finds nothing is how code is explored.
 * Format leaks, refusals and tool errors need no more evidence: they are broken replies.
 */
import type { RollbackTrigger } from "./triggers.js"

/** Runs of one query, this one included, from which a duplicate pops outside a loop episode. */
export const DUPLICATE_POP_AT = 3

/** The duplicate-query trigger when it carries enough evidence, else null. */
export const duplicateWithEvidence = (trigger: RollbackTrigger | null, inLoop: boolean): RollbackTrigger | null =>
  trigger !== null && trigger.kind === "duplicate-query" && trigger.count + 1 < DUPLICATE_POP_AT && !inLoop ? null : trigger

/** The useless-result trigger when it carries enough evidence (`askedBefore`: the query ran already), else null. */
export const uselessWithEvidence = (trigger: RollbackTrigger | null, askedBefore: boolean): RollbackTrigger | null =>
  trigger !== null && trigger.kind === "useless-result" && trigger.rule === "empty-search" && !askedBefore ? null : trigger
