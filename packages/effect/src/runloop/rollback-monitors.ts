/**
 * The rollback guard's in-step checks as a stream monitor; the policy itself is Effect-free
 * (`RollbackGuard` in `@loopguard/core/rollback`).
 */
import type { RollbackGuard } from "@loopguard/core/rollback"
import type { MonitorFactory } from "../processor/monitors.js"

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
