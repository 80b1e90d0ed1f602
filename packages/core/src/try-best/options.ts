/**
 * Try-Best thresholds and the data that says which tools edit files, which run shell commands
 * and which shell commands verify the work. Everything here is plain data so that a config file
 * can extend it: agents name their tools differently, and projects verify differently.
 */

/** Tool names (compared case-insensitively) whose finished calls are edits. */
export const DEFAULT_EDIT_TOOLS: ReadonlyArray<string> = [
  "edit",
  "write",
  "apply_patch",
  "multiedit",
  "str_replace",
  "str_replace_editor",
  "str_replace_based_edit_tool",
  "notebook_edit",
  "notebookedit",
  "create",
  // Names used by other agents for the same operations.
  "write_file",
  "edit_file",
  "create_file",
  "write_to_file",
  "replace_in_file",
  "search_replace",
  // Gemini CLI / Qwen Code edit in place with `replace`; Claude Code / OpenCode call it `Edit`.
  "replace"
]

/**
 * Multi-purpose editor tools: only these values of their `command` input are edits. Any other
 * command (`view`, `undo_edit`) is neither an edit nor a shell call, although it has a string
 * `command` field.
 */
export const DEFAULT_EDIT_TOOL_COMMANDS: Readonly<Record<string, ReadonlyArray<string>>> = {
  str_replace_editor: ["create", "str_replace", "insert"],
  str_replace_based_edit_tool: ["create", "str_replace", "insert"]
}

/** Tool names (compared case-insensitively) that run a shell command. */
export const DEFAULT_SHELL_TOOLS: ReadonlyArray<string> = [
  "bash",
  "shell",
  "run_command",
  "execute_command",
  "run_terminal_cmd",
  "exec",
  "local_shell",
  "run_shell_command",
  // OpenHands (`{command, is_input, timeout}`); Claude Code's `Bash` matches "bash".
  "execute_bash",
  "container.exec",
  "shell_command",
  // Codex 0.17x (`{cmd, workdir, yield_time_ms}`).
  "exec_command"
]

/**
 * Tool names (compared case-insensitively) that only read: files, listings, searches, pages.
 * Multi-purpose editors are reads for their other commands (`str_replace_editor` view).
 */
export const DEFAULT_READ_TOOLS: ReadonlyArray<string> = [
  "read",
  "read_file",
  "read_many_files",
  "view",
  "open",
  "goto",
  "scroll_up",
  "scroll_down",
  "cat",
  "glob",
  "grep",
  "ls",
  "list_directory",
  "list_dir",
  "search_file_content",
  "search_dir",
  "search_file",
  "find_file",
  "codebase_search",
  "file_search",
  "browser",
  "web_fetch",
  "webfetch",
  "web_search",
  "websearch",
  "google_web_search",
  "fetch"
]

/**
 * Bookkeeping tools (compared case-insensitively): they record the agent's own notes, plans and
 * hand-ins, and always answer the same ("Your thought has been logged."). A loop detector must
 * neither count them as a repeated observation nor let them break a run of real steps.
 */
export const DEFAULT_BOOKKEEPING_TOOLS: ReadonlyArray<string> = [
  "think",
  "todowrite",
  "todoread",
  "todo_write",
  "update_plan",
  "write_todos",
  "save_memory",
  "task_tracker"
]

/**
 * Verification commands: regular-expression sources, matched case-insensitively at the start of
 * each simple command of a command line (after `&&`, `||`, `;`, `|`), once the wrappers below
 * have been stripped. `cd app && npx tsc --noEmit 2>&1 | tail` therefore matches `tsc`, while
 * `grep -r pytest .` does not match `pytest`.
 */
export const DEFAULT_VERIFICATION_PATTERNS: ReadonlyArray<string> = [
  // bun / npm / pnpm / yarn scripts, with or without `run`, flags allowed before the script.
  String.raw`(?:bun|npm|pnpm|yarn)(?:\s+-\S+(?:\s+(?!-)\S+)?)*\s+(?:run\s+)?(?:test|typecheck|type-check|lint|build|check)(?::[\w:-]+)?(?![\w-])`,
  String.raw`npm\s+t(?![\w-])`,
  // JavaScript tools run directly (npx / bunx are wrappers, see below).
  String.raw`(?:\S*/)?(?:tsc|vue-tsc|vitest|jest|mocha|eslint|ava)(?![\w.-])`,
  String.raw`(?:biome\s+(?:check|lint|ci)|playwright\s+test|deno\s+(?:test|check|lint))(?![\w-])`,
  // Rust, Go, make.
  String.raw`cargo(?:\s+\+\S+)?\s+(?:test|check|clippy|build|nextest)(?![\w-])`,
  String.raw`go\s+(?:test|vet|build)(?![\w-])`,
  String.raw`make(?:\s+-\S+(?:\s+(?!-)\S+)?)*\s+(?:test|check|lint|build)(?![\w-])`,
  // `make` / `make -j4` alone builds the default target.
  String.raw`make(?:\s+(?:-[\w=-]+|[12]?>&[12]|[12]?>>?\s*\S+))*\s*$`,
  // Python.
  String.raw`(?:python[\d.]*\s+-m\s+)?(?:pytest|py\.test)(?![\w-])`,
  String.raw`python[\d.]*\s+-m\s+unittest(?![\w-])`,
  String.raw`(?:python[\d.]*\s+)?(?:\S*/)?runtests\.py(?![\w-])`,
  String.raw`python[\d.]*\s+(?:\S*/)?manage\.py\s+test(?![\w-])`,
  String.raw`(?:tox|nox)(?![\w-])`,
  // JVM and others.
  String.raw`(?:\./)?(?:mvnw?|gradlew?)(?:\s+\S+)*?\s+(?:\S*:)?(?:test|verify|check|build|compile)(?![\w-])`,
  String.raw`(?:dotnet|swift)\s+(?:test|build)(?![\w-])`,
  String.raw`(?:rspec|phpunit|ctest)(?![\w-])`,
  String.raw`mix\s+test(?![\w-])`,
  String.raw`javac(?![\w-])`,
  // A project's own test, lint, type-check or build script (`sh run-tests.sh`, `./test.sh`, `bash
  // scripts/lint.sh`, `./runtests.sh`): a failing run reports what it was run for, as `npm test` does.
  String.raw`(?:(?:ba|z|da)?sh\s+(?:-\S+\s+)*)?(?:\S*/)?(?:[\w-]*[-_]|run)?(?:tests?|lint|typecheck|type-check|check|build)(?:[-_][\w-]*)?\.sh(?![\w.-])`,
  // A reproduction or test script run directly (`python reproduce_issue.py`, `node test.js`,
  // `python /repo/run_repro.py`): how agents without a test suite check their work.
  String.raw`(?:python[\d.]*|node|bun|deno|tsx|ts-node|ruby|java)(?:\s+-\S+)*\s+(?:\S*/)?(?:[\w-]*_)?(?:repro|reproduce|test|tests|verify|check)[\w.-]*`
]

/**
 * Prefixes stripped (repeatedly) from the start of a simple command before the verification
 * patterns are tried: environment assignments, `timeout 60`, `npx`, `uv run`, `bash -lc` ...
 */
export const DEFAULT_COMMAND_WRAPPERS: ReadonlyArray<string> = [
  String.raw`[A-Za-z_][A-Za-z0-9_]*=(?:"[^"]*"|'[^']*'|\S*)`,
  String.raw`(?:env|sudo|nohup|time|command)(?:\s+-\S+)*`,
  String.raw`nice(?:\s+-n\s*-?\d+)?`,
  String.raw`timeout(?:\s+-\S+(?:\s+\d\S*)?)*\s+\d\S*`,
  String.raw`stdbuf(?:\s+-\S+)+`,
  String.raw`xvfb-run(?:\s+-\S+)*`,
  String.raw`(?:npx|bunx|pnpx)(?:\s+-\S+)*`,
  String.raw`(?:pnpm|yarn|bun)\s+(?:exec|dlx|x)`,
  String.raw`npm\s+exec(?:\s+--)?`,
  String.raw`(?:uv|poetry|pipenv|pdm|hatch|rye)\s+run`,
  String.raw`conda\s+run(?:\s+-n\s+\S+)?`,
  String.raw`bundle\s+exec`,
  String.raw`(?:ba|z|da)?sh\s+-l?c`
]

/** How a failing verification run is judged to have made progress. */
export type OutputProgress =
  /** Its normalized output differs from the previous run's (MiMo Code's rule). */
  | "changed"
  /** Its normalized output was not seen before since the command last succeeded: A, B, A is not progress. */
  | "novel"

export interface TryBestOptions {
  /** Recent edits (of all files together) that a new edit is compared with. */
  readonly editWindow: number
  /** Jaccard similarity an earlier edit must exceed (strictly) to count as a match. */
  readonly editSimilarity: number
  /** Matches against earlier edits of the same path that raise `edit_repeat`; 0: never. */
  readonly editMatches: number
  /** Consecutive no-progress actions of one kind that raise `action_streak`; 0: never. */
  readonly actionStreak: number
  /** Failures of one normalized command that raise `bash_retry`. */
  readonly failedCommandRetries: number
  readonly editTools: ReadonlyArray<string>
  readonly editToolCommands: Readonly<Record<string, ReadonlyArray<string>>>
  readonly shellTools: ReadonlyArray<string>
  /** Read-only tools (files, listings, searches): neither edits nor shell commands. */
  readonly readTools: ReadonlyArray<string>
  /** Bookkeeping tools (think, todo lists): transparent to the loop detectors. */
  readonly bookkeepingTools: ReadonlyArray<string>
  /** A tool that is not an edit tool but has a string `command` input is a shell call. */
  readonly commandInputIsShell: boolean
  /** A finished tool part that carries a `diff` is an edit whatever its name (trace format v1). */
  readonly diffIsEdit: boolean
  readonly verificationPatterns: ReadonlyArray<string>
  readonly commandWrappers: ReadonlyArray<string>
  readonly outputProgress: OutputProgress
  /** Normalized verification output longer than this keeps its head and tail only. */
  readonly outputLimit: number
}

export const DEFAULT_TRY_BEST_OPTIONS: TryBestOptions = {
  editWindow: 12,
  editSimilarity: 0.8,
  editMatches: 2,
  actionStreak: 4,
  failedCommandRetries: 3,
  editTools: DEFAULT_EDIT_TOOLS,
  editToolCommands: DEFAULT_EDIT_TOOL_COMMANDS,
  shellTools: DEFAULT_SHELL_TOOLS,
  readTools: DEFAULT_READ_TOOLS,
  bookkeepingTools: DEFAULT_BOOKKEEPING_TOOLS,
  commandInputIsShell: true,
  diffIsEdit: true,
  verificationPatterns: DEFAULT_VERIFICATION_PATTERNS,
  commandWrappers: DEFAULT_COMMAND_WRAPPERS,
  outputProgress: "changed",
  outputLimit: 2000
}

/** Try-Best options: the defaults with the given fields replaced. */
export const resolveTryBestOptions = (overrides?: Partial<TryBestOptions>): TryBestOptions =>
  overrides === undefined ? DEFAULT_TRY_BEST_OPTIONS : { ...DEFAULT_TRY_BEST_OPTIONS, ...overrides }
