/**
 * Checked before each tool call runs. Today: upstream OpenCode's doom_loop — the same tool with
 * the same input three times in one reply asks the Permission service; a non-interactive agent
 * (no one to ask) is denied, which stops the step.
 */
import { doomLoop } from "@loopguard/core/loops"
import { type AssistantMessage } from "@loopguard/core/model"
import { Context, Effect, Layer } from "effect"
import { ConfigService } from "../config/ConfigService.js"
import { Events, stampIds } from "../events/Events.js"
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
  static readonly layerAllow = Layer.succeed(Permission, Permission.of({ ask: () => Effect.succeed("allow") }))
  static readonly layerFrom = (ask: (request: PermissionRequest) => Effect.Effect<PermissionAnswer>) =>
    Layer.succeed(Permission, Permission.of({ ask }))
}

export type ToolGateVerdict = { readonly _tag: "allow" } | { readonly _tag: "deny"; readonly reason: string }

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
      const events = stampIds(yield* Events)
      const allow: ToolGateVerdict = { _tag: "allow" }
      return ToolGate.of({
        beforeCall: Effect.fn("ToolGate.beforeCall")(function* (reply, call, step) {
          if (!config.doom_loop.enabled) return allow
          const loop = doomLoop(reply, { repeats: config.doom_loop.repeats })
          if (!loop) return allow
          const interactive = config.loop.interactive
          const answer: PermissionAnswer = interactive
            ? yield* permission.ask({ kind: "doom-loop", tool: loop.tool, input: loop.input, step })
            : "deny"
          yield* events.publish({
            type: "incident",
            step,
            detector: "doom-loop",
            kind: "loop",
            action: answer === "allow" ? "permission-granted" : interactive ? "permission-denied" : "fail-non-interactive",
            detail: { tool: loop.tool, input: loop.input, callId: call.id }
          })
          if (answer === "allow") return allow
          return {
            _tag: "deny",
            reason: `doom loop: ${loop.tool} was called ${config.doom_loop.repeats} times with the same input in one reply`
          } satisfies ToolGateVerdict
        })
      })
    })
  )
}
