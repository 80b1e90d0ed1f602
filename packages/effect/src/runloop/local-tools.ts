/**
 * Tools the RunLoop answers itself rather than the Tools service: the structured-output tool (the
 * run's result) and the `task` tool (a sub-agent).
 */
import { Effect } from "effect"
import type { ToolSpec } from "../llm/LLM.js"
import type { ToolResult } from "../tools/Tools.js"
import type { LocalTools, RunContext, RunServices } from "./run-context.js"
import type { RunInput, SpawnRun } from "./run-types.js"
import { offersTask, runTask, TASK_TOOL } from "./stages/subagent.js"

export const structuredToolName = (input: RunInput): string => input.structuredOutput?.toolName ?? "structured_output"

/** The structured-output tool, when a schema was asked for. */
export const structuredToolSpecs = (input: RunInput): ReadonlyArray<ToolSpec> =>
  input.structuredOutput
    ? [
        {
          name: structuredToolName(input),
          description: input.structuredOutput.description ?? "Return the final result in the required structure. Call this once, when done.",
          inputSchema: input.structuredOutput.schema
        }
      ]
    : []

/** `context` is read when a tool runs, so the tools can be built with the context they belong to. */
export const localToolsOf = (s: RunServices, input: RunInput, spawn: SpawnRun | undefined, context: () => RunContext): LocalTools => {
  const structured = structuredToolSpecs(input).map((spec) => ({
    spec,
    run: (_: unknown) => Effect.succeed<ToolResult>({ state: "completed", output: "Structured result received." })
  }))
  const task = spawn !== undefined && offersTask(s, input) ? [{ spec: TASK_TOOL, run: (args: unknown) => runTask(s, context(), spawn, args) }] : []
  const all = [...structured, ...task]
  return { specs: all.map((t) => t.spec), handlers: new Map(all.map((t) => [t.spec.name, t.run])) }
}
