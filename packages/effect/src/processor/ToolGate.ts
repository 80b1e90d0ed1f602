/**
 * Checked before each tool call runs. The default gate: upstream OpenCode's doom_loop — the same
 * tool with the same input three times in one reply asks the Permission service; a non-interactive
 * agent (no one to ask) is denied, which stops the step. A gate of one's own may also refuse one
 * call and let the run go on.
 */
import { doomLoop } from "@loopguard/core/loops"
import { type AssistantMessage } from "@loopguard/core/model"
import type { Incident } from "@loopguard/core/report"
import { Context, Effect, Layer } from "effect"
import { ConfigService } from "../config/ConfigService.js"
import type { ToolCall } from "../tools/Tools.js"

export type PermissionAnswer = "allow" | "deny"

export interface PermissionRequest {
  readonly kind: "doom-loop"
  readonly tool: string
  readonly input: unknown
  readonly step: number
}

/** Who decides when loopguard needs a human's yes or no. */
export class Permission extends Context.Service<
  Permission,
  { readonly ask: (request: PermissionRequest) => Effect.Effect<PermissionAnswer> }
>()("loopguard/Permission") {
  /** A background agent: there is no one to ask, so the answer is no. */
  static readonly layerDeny = Layer.succeed(Permission, Permission.of({ ask: () => Effect.succeed("deny") }))
  /** Every request granted (tests, a runtime that trusts its agent). */
  static readonly layerAllow = Layer.succeed(Permission, Permission.of({ ask: () => Effect.succeed("allow") }))
  /** Answers from `ask` (a terminal prompt, a UI): `Layer.succeed(Permission, Permission.make(ask))`. */
  static readonly make = (ask: (request: PermissionRequest) => Effect.Effect<PermissionAnswer>) => Permission.of({ ask })
  /** @deprecated Use `Layer.succeed(Permission, Permission.make(ask))`; this alias goes in the next release. */
  static readonly layerFrom = (ask: (request: PermissionRequest) => Effect.Effect<PermissionAnswer>) => Layer.succeed(Permission, Permission.make(ask))
}

/** An incident the gate wants filed for its verdict; the processor files it under the step (one door: event and report). */
export type ToolGateIncident = Omit<Incident, "step">

/**
 * The gate's answer for one call:
 * - `allow`: the call runs;
 * - `refuse`: this call is not run, the model reads `reason` as the call's result, and the run goes
 *   on (the next call, the next step) — for a policy that says no to one call;
 * - `deny`: the call is not run and the step stops; the run ends `doom_loop`.
 * Each may carry an incident to file; a `refuse` or `deny` without one is filed as `tool-gate`.
 */
export type ToolGateVerdict =
  | { readonly _tag: "allow"; readonly incident?: ToolGateIncident }
  | { readonly _tag: "refuse"; readonly reason: string; readonly incident?: ToolGateIncident }
  | { readonly _tag: "deny"; readonly reason: string; readonly incident?: ToolGateIncident }

/** Checked before each tool call runs: a doom loop asks Permission or, non-interactive, is denied. */
export class ToolGate extends Context.Service<
  ToolGate,
  { readonly beforeCall: (reply: AssistantMessage, call: ToolCall, step: number) => Effect.Effect<ToolGateVerdict> }
>()("loopguard/ToolGate") {
  static readonly layer = Layer.effect(
    ToolGate,
    Effect.gen(function* () {
      const config = yield* ConfigService
      const permission = yield* Permission
      const allow: ToolGateVerdict = { _tag: "allow" }
      return ToolGate.of({
        beforeCall: Effect.fn("ToolGate.beforeCall")(function* (reply, call, step) {
          if (!config.doomLoop.enabled) return allow
          const loop = doomLoop(reply, { repeats: config.doomLoop.repeats })
          if (!loop) return allow
          const interactive = config.loop.interactive
          const answer: PermissionAnswer = interactive
            ? yield* permission.ask({ kind: "doom-loop", tool: loop.tool, input: loop.input, step })
            : "deny"
          const incident: ToolGateIncident = {
            detector: "doom-loop",
            kind: "loop",
            action: answer === "allow" ? "permission-granted" : interactive ? "permission-denied" : "fail-non-interactive",
            detail: { tool: loop.tool, input: loop.input, callId: call.id }
          }
          if (answer === "allow") return { _tag: "allow", incident } satisfies ToolGateVerdict
          return {
            _tag: "deny",
            reason: `doom loop: ${loop.tool} was called ${config.doomLoop.repeats} times with the same input in one reply`,
            incident
          } satisfies ToolGateVerdict
        })
      })
    })
  )
}
