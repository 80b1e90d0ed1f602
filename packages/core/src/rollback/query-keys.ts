/**
 * Which arguments make two calls of a tool "the same query" (docs/rollback.md). Data: rows are tried in
 * order and the first whose `tools` pattern matches the tool name wins (`*` = any run,
 * case-insensitive). `keys` lists argument names (case-insensitive); `"all"` uses every argument;
 * `"none"` never deduplicates the tool. Tools matched by no row use `unlistedTools`.
 *
 * The "none" row matters: re-running a shell command or re-reading a file after an edit is how a
 * coding agent checks its work, not a loop (the cross-step detectors cover real repetition there).
 */
export interface QueryKeyRule {
  readonly tools: ReadonlyArray<string>
  readonly keys: ReadonlyArray<string> | "all" | "none"
}

export const DEFAULT_QUERY_KEY_RULES: ReadonlyArray<QueryKeyRule> = [
  { tools: ["search_and_browse"], keys: ["subtask"] },
  { tools: ["scrape_and_extract_info"], keys: ["url", "info_to_extract"] },
  { tools: ["*search*"], keys: ["q", "query", "search_query", "queries"] },
  { tools: ["*fetch*", "*scrape*", "*crawl*", "*browse*", "*visit*"], keys: ["url", "urls"] },
  {
    tools: [
      "bash", "shell", "*terminal*", "*exec*", "run_*", "*python*", "*command*",
      "edit", "multiedit", "*write*", "*patch*", "read", "view", "ls", "list*", "glob", "grep",
      "todo*", "task"
    ],
    keys: "none"
  }
]
