/**
 * Helpers for the retry fault tests: fast budgets, a one-step driver over SessionProcessor, and
 * readers for the retry events and the bodies the scripted server received.
 */
import type { ErrorResponse, ScriptedResponse } from "@loopguard/ai-sdk/testing"
import { SessionProcessor, SessionStore, type LlmRequest, type LoopguardConfig, type LoopguardEvent } from "@loopguard/effect"
import { Effect } from "effect"

type RetrySection = NonNullable<LoopguardConfig["retry"]>
type BudgetPatch = NonNullable<RetrySection["request"]>
export type BudgetName = Exclude<keyof RetrySection, "overloadedImmediateRetries" | "jitterRatio" | "retryableStatuses">

const BUDGETS: ReadonlyArray<BudgetName> = ["request", "stream", "maxCandidate", "maxJudge", "network", "server", "unknown", "rateLimit"]

/**
 * Every budget made fast and deterministic: no jitter, and each budget gets its own initial delay
 * (request 10 ms, stream 20, network 30, server 40, unknown 50, rateLimit 60, max* 70) so the
 * `delayMs` of an attempt event tells which budget granted it.
 */
export const FAST_INITIAL_MS: Readonly<Record<BudgetName, number>> = {
  request: 10,
  stream: 20,
  network: 30,
  server: 40,
  unknown: 50,
  rateLimit: 60,
  maxCandidate: 70,
  maxJudge: 70
}

export const fastRetry =
  (patch: Partial<Record<BudgetName, BudgetPatch>> = {}, extra: { readonly chunkTimeoutMs?: number; readonly overloaded?: number } = {}) =>
  (c: LoopguardConfig): LoopguardConfig => {
    const retry: Record<string, unknown> = {}
    for (const name of BUDGETS) {
      retry[name] = { initialDelayMs: FAST_INITIAL_MS[name], maxDelayMs: 2_000, jitterRatio: 0, ...patch[name] }
    }
    if (extra.overloaded !== undefined) retry["overloadedImmediateRetries"] = extra.overloaded
    return {
      ...c,
      retry: retry as RetrySection,
      ...(extra.chunkTimeoutMs !== undefined ? { stream: { ...c.stream, chunkTimeoutMs: extra.chunkTimeoutMs } } : {})
    }
  }

/** One step through SessionProcessor, with the user message stored first (ids a1, a2, …). */
export const processStep = (request: LlmRequest = { messages: [{ role: "user", text: "go" }], tools: [] }) =>
  Effect.gen(function* () {
    const processor = yield* SessionProcessor
    const store = yield* SessionStore
    yield* store.append("s", { role: "user", id: "u0", text: "go" })
    const result = yield* processor.process({ sessionId: "s", parentId: "u0", step: 0, request, messageId: (n) => `a${n}` })
    return { result, stored: yield* store.messages("s") }
  })

export type AttemptEvent = Extract<LoopguardEvent, { type: "session.retry.attempt" }>
export type TerminalEvent = Extract<LoopguardEvent, { type: "session.retry.terminal" }>

export const attemptsOf = (events: ReadonlyArray<LoopguardEvent>): Array<AttemptEvent> =>
  events.filter((e): e is AttemptEvent => e.type === "session.retry.attempt")

export const terminalsOf = (events: ReadonlyArray<LoopguardEvent>): Array<TerminalEvent> =>
  events.filter((e): e is TerminalEvent => e.type === "session.retry.terminal")

/** An HTTP error answer in OpenAI's shape. */
export const httpError = (status: number, extra: Omit<ErrorResponse, "type" | "status"> = {}): ScriptedResponse => ({
  type: "error",
  status,
  ...extra
})

/** OpenAI's overload error body. */
export const overloaded = (status: 500 | 503): ScriptedResponse =>
  httpError(status, { body: { error: { message: "The server is overloaded, please try again.", type: "server_error", code: "server_is_overloaded" } } })

/** How many times `needle` occurs in `haystack`. */
export const occurrences = (haystack: string, needle: string): number => haystack.split(needle).length - 1
