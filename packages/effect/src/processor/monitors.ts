/**
 * In-stream monitors are plain synchronous objects so the per-delta path stays cheap; a
 * factory makes a fresh one for every attempt (a replayed step starts from zero).
 */
import type { StreamPart, ToolPart } from "@loopguard/core/model"
import { ArgumentsGuard, RepeatGuard, type GuardTrip, type RepeatGuardOptions } from "@loopguard/core/repeat"

export type MonitorTrip =
  | { readonly outcome: "text-repeat"; readonly monitor: string; readonly trip: GuardTrip }
  | {
      readonly outcome: "paused"
      readonly monitor: string
      /** The synthetic text part written into the reply. */
      readonly notice: string
      readonly incident: Readonly<Record<string, unknown>>
    }
  | { readonly outcome: "stop"; readonly monitor: string; readonly reason: string }
  /**
   * Stop consuming the stream and run no further call of this step; the step itself ends normally
   * and the RunLoop decides (a rollback). `reason` is recorded as the error of a call not run.
   */
  | { readonly outcome: "halt"; readonly monitor: string; readonly reason: string }

/** A call about to run, as `beforeTool` sees it. */
export interface PendingCall {
  readonly id: string
  readonly name: string
  readonly input: unknown
}

export interface StreamMonitor {
  readonly name: string
  readonly onPart?: (part: StreamPart) => MonitorTrip | null
  /** Called before a call runs; a trip means it does not run. */
  readonly beforeTool?: (call: PendingCall, step: number) => MonitorTrip | null
  /** Called once per tool part that reached completed or error. */
  readonly onToolFinished?: (part: ToolPart, step: number) => MonitorTrip | null
  /** The stream ended: a held partial word may still complete a loop. */
  readonly onEnd?: () => MonitorTrip | null
}

export type MonitorFactory = (ctx: { readonly step: number; readonly attempt: number }) => StreamMonitor

/**
 * The short-period and long-period rules: text and reasoning deltas feed one guard; a call's
 * argument deltas feed another (made at the first), since a write whose content loops is as much a
 * runaway as a reply that does. A call cut there never runs: its arguments never became whole.
 */
export const repeatMonitor =
  (options: RepeatGuardOptions): MonitorFactory =>
  () => {
    const guard = new RepeatGuard(options)
    const args = ArgumentsGuard.of(options)
    const trip = (t: GuardTrip | null): MonitorTrip | null => (t === null ? null : { outcome: "text-repeat", monitor: "text-repeat", trip: t })
    // A switch between reasoning and text ends the word in progress (no word spans the two).
    let last: "text-delta" | "reasoning-delta" | null = null
    return {
      name: "text-repeat",
      onPart: (part) => {
        if (part.type === "tool-input-delta") return trip(args.push(part.id, part.delta))
        if (part.type !== "text-delta" && part.type !== "reasoning-delta") return null
        if (last !== null && last !== part.type) {
          const t = trip(guard.flush())
          last = part.type
          if (t) return t
        }
        last = part.type
        return trip(guard.push(part.text))
      },
      onEnd: () => trip(guard.flush())
    }
  }
