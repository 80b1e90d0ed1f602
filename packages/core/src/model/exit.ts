/** Every way a loop ends. One literal per path; every path produces one report. */
export const EXIT_REASONS = [
  "final",
  "max_steps",
  "budget_tokens",
  "budget_cost",
  "text_repeat",
  "text_loop",
  "try_best_paused",
  "output_length",
  "content_filter",
  "model_error",
  "protocol",
  "circuit_open",
  "cancelled",
  "time_limit",
  "timeout",
  "rollback_cap",
  "dropped_tool_call",
  "think_only",
  "invalid_output",
  "text_tool_call",
  "structured_output",
  "doom_loop",
  "idle",
  "goal_gate_cap",
  "depth_limit",
  "completion_check_failed"
] as const

export type ExitReason = (typeof EXIT_REASONS)[number]
