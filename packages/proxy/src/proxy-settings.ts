/** What a running proxy is set to: routing, limits and the detector settings per route (built by `settingsOf`). */
import type { ToolCallCaps } from "@loopguard/core/caps"
import { argumentsGuardOptions, RepeatGuardPool, type RepeatGuardOptions } from "@loopguard/core/repeat"
import type { RoutingConfig } from "./routes.js"
import type { VerdictConfig } from "./verdict-types.js"

/**
 * A route's repetition guards: for replies' text and reasoning, and for calls' arguments. Kept
 * between streams (`RepeatGuardPool`), so a stream does not allocate a guard's buffers anew.
 */
export interface ReplyGuards {
  readonly replies: RepeatGuardPool
  readonly arguments: RepeatGuardPool
}

export const replyGuardsOf = (options: RepeatGuardOptions): ReplyGuards => ({
  replies: new RepeatGuardPool(options),
  arguments: new RepeatGuardPool(argumentsGuardOptions(options))
})

/** The detector settings a request is judged and guarded with. */
export interface DetectorSettings {
  readonly verdict: VerdictConfig
  /** Null: `repeat.enabled` is off. */
  readonly guards: ReplyGuards | null
}

export interface ProxySettings extends DetectorSettings {
  readonly routing: RoutingConfig
  /** Routes (by their `proxy.routes` key) with detector settings of their own. */
  readonly routeDetectors: ReadonlyMap<string, DetectorSettings>
  readonly sessionHeader: string
  /** Tool calls written as text become structured calls when the request offered the tool. */
  readonly textToolCalls: boolean
  /** In a request that offers no tools, actions written in replies and the user messages after them are judged as calls and results. */
  readonly textActions: boolean
  /** Calls per tool in one user turn (`toolCaps`). */
  readonly toolCaps: ToolCallCaps
  readonly maxRequestBytes: number
  /** How long a request's body may take to arrive whole (`proxy.requestBodyTimeoutMs`). */
  readonly requestBodyTimeoutMs: number
  /** Web page origins let in besides loopback ones (`proxy.allowedOrigins`; "*": any). */
  readonly allowedOrigins: ReadonlyArray<string>
  readonly maxResponseBytes: number
  readonly maxEventBytes: number
}
