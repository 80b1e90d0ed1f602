/**
 * For every exit reason: the run status it means, what happened in one line, and what a person
 * should do next. A `Record` over `ExitReason` so a new reason does not compile until it has a row.
 */
import type { ExitReason } from "../model/exit.js"

export type RunStatus = "completed" | "aborted" | "paused"

export interface ExitOutcome {
  readonly status: RunStatus
  /** What happened, used as `blockedAt` when nothing more specific is known. */
  readonly summary: string
  readonly suggestion: string
}

export const EXIT_OUTCOMES: Readonly<Record<ExitReason, ExitOutcome>> = {
  final: {
    status: "completed",
    summary: "The model gave a final answer.",
    suggestion: "Review the answer and the changes; run your own checks before relying on them."
  },
  max_steps: {
    status: "aborted",
    summary: "The step cap was reached before the task was done.",
    suggestion: "Check the progress listed above; resume with a narrower goal or a higher step cap."
  },
  budget_tokens: {
    status: "aborted",
    summary: "The token budget (loop.tokenBudget) was spent.",
    suggestion: "Decide whether the remaining work is worth more tokens; resume with a raised loop.tokenBudget or a smaller task."
  },
  budget_cost: {
    status: "aborted",
    summary: "The cost budget (loop.costBudgetUsd) was spent.",
    suggestion: "Decide whether the remaining work is worth more money; resume with a raised loop.costBudgetUsd or a cheaper model."
  },
  text_repeat: {
    status: "aborted",
    summary: "The model kept repeating itself within one reply (Text repetition detected).",
    suggestion: "Resume with a rephrased or narrower request, or switch to a different model."
  },
  text_loop: {
    status: "aborted",
    summary: "The model gave the same reply over several steps (Text loop detected).",
    suggestion: "Read where it got stuck, give it the missing information or a different approach, then resume."
  },
  try_best_paused: {
    status: "paused",
    summary: "The turn was paused: repeated low-yield actions without progress.",
    suggestion: "Choose: hand the work to another harness, or continue with a substantially different strategy."
  },
  output_length: {
    status: "aborted",
    // Also where streams kept ending without a finish reason: the two share one budget.
    summary: "The reply kept stopping before it was done (at the output length limit, or a stream that ended without a finish reason).",
    suggestion: "Raise the output token limit or ask for the result in smaller parts; if the replies ended without a finish reason, check the server (or a proxy in front of it) that closes its streams early."
  },
  content_filter: {
    status: "aborted",
    summary: "The provider's content filter stopped the reply.",
    suggestion: "Review the request for content the provider refuses; rephrase it or use another provider."
  },
  model_error: {
    status: "aborted",
    summary: "The model request failed with an error that is not retried.",
    suggestion: "Read the error: fix credentials, quota or the request, then resume the session."
  },
  protocol: {
    status: "aborted",
    summary: "The server broke the protocol: an answer that is not an event stream, or a response or event past the size limits.",
    suggestion: "Check the base URL and what the server sends (a proxy or login page answers HTML); raise stream.maxResponseBytes / stream.maxEventBytes only if the server is trusted."
  },
  circuit_open: {
    status: "aborted",
    summary: "Tool calls kept failing (error storm); the work was handed back.",
    suggestion: "Check the failing tool and its environment (permissions, network, dependencies) before resuming."
  },
  cancelled: {
    status: "aborted",
    summary: "The run was cancelled.",
    suggestion: "Resume the session when ready; work done so far is kept."
  },
  time_limit: {
    status: "aborted",
    summary: "The run reached its wall-clock limit (loop.maxWallMs); the running step was cancelled.",
    suggestion: "Check the progress listed above; resume with a narrower goal or a longer loop.maxWallMs."
  },
  timeout: {
    status: "aborted",
    summary: "A tool or step exceeded its time limit.",
    suggestion: "Find what hung (a command waiting for input, a slow network call); fix it or raise the timeout."
  },
  rollback_cap: {
    status: "aborted",
    summary: "Too many consecutive replies had to be rolled back.",
    suggestion: "Check the model's tool-call format and the tool set; try another model or simplify the tools."
  },
  dropped_tool_call: {
    status: "aborted",
    summary: "The model announced tool calls that never arrived (dropped by the server).",
    suggestion: "Check the server's tool-call parser for this model, or use a model whose tool calls it accepts."
  },
  think_only: {
    status: "aborted",
    summary: "The model kept replying with reasoning only, never an answer or a tool call.",
    suggestion: "Lower the reasoning effort, or try a different model for this task."
  },
  invalid_output: {
    status: "aborted",
    summary: "The model kept returning empty output.",
    suggestion: "Check the endpoint and model configuration (context size, stop sequences), then retry."
  },
  text_tool_call: {
    status: "aborted",
    summary: "The model kept writing tool calls as text instead of calling tools.",
    suggestion: "Enable the server's tool-call parser for this model, or switch to a model with native tool calling."
  },
  structured_output: {
    status: "aborted",
    summary: "The model did not produce the required structured result.",
    suggestion: "Simplify the output schema or use a model that supports tool calls reliably."
  },
  doom_loop: {
    status: "aborted",
    summary: "The model repeated the same tool call with the same input.",
    suggestion: "Find out why the call does not succeed, give the agent that information, then resume."
  },
  idle: {
    status: "aborted",
    summary: "The agent kept repeating itself without progress (the same action, a cycle, the same output, or a spin) after a note and a reminder.",
    suggestion: "Read the last incidents to see what it kept doing; give it the missing information or a different approach, then resume."
  },
  goal_gate_cap: {
    status: "aborted",
    summary: "The goal check kept judging the goal unmet and reached its cap.",
    suggestion: "Read the evaluator's last verdict; clarify the goal or finish the remaining part by hand."
  },
  depth_limit: {
    status: "aborted",
    summary: "The sub-agent was not started: it would nest deeper than subagents.maxDepth.",
    suggestion: "Do the sub-task in the calling agent, or raise subagents.maxDepth if deeper nesting is intended."
  },
  completion_check_failed: {
    status: "aborted",
    summary: "The completion check kept failing after the model claimed to be done.",
    suggestion: "Run the completion check yourself and read its output; fix the remaining failures or resume."
  }
}

/** The run status an exit reason maps to. */
export const statusOf = (reason: ExitReason): RunStatus => EXIT_OUTCOMES[reason].status

/** The suggested next step for an exit reason. */
export const suggestionFor = (reason: ExitReason): string => EXIT_OUTCOMES[reason].suggestion
