/**
 * Actions that text-protocol harnesses run from their model's reply, where the request offers no
 * tools and the action is written in the text: mini-SWE-agent and SWE-agent 0.x take one fenced
 * block of shell commands, SWE-agent 1.x (and Qwen-style prompts) one XML function,
 * `<function=NAME><parameter=KEY>VALUE</parameter></function>`, Cline and Roo Code one tool named by
 * its tag, `<execute_command><command>…</command></execute_command>`. Each runs exactly one action
 * per reply and answers any other count with a format error, running nothing; so a reply with none
 * or several is not an action here. The result comes back as the next user message, wrapped the
 * harness's way (`isHarnessResult`). A tool that hands the turn to the person (Cline's
 * `attempt_completion`, `ask_followup_question`) is not an action: what follows it is the person's
 * answer.
 * Parsers of model output: they never throw.
 */

export interface HarnessAction {
  readonly name: string
  readonly input: Readonly<Record<string, string>>
}

const XML_FUNCTION = /<function=([\w.-]+)>([\s\S]*?)<\/function>/g
const XML_PARAMETER = /<parameter=([\w.-]+)>([\s\S]*?)<\/parameter>/g
// A fence at a line start, its info string, its body, the closing fence at a line start.
const FENCED = /^[ \t]*```([^\n`]*)\n([\s\S]*?)^[ \t]*```[ \t]*$/gm
const SHELL_INFO = new Set(["", "bash", "sh", "shell", "console", "zsh"])

// Cline's and Roo Code's tools that act (not those that hand the turn to the person), each its own tag.
const TAG_TOOLS = [
  "execute_command", "read_file", "write_to_file", "replace_in_file", "apply_diff", "insert_content", "search_and_replace",
  "search_files", "list_files", "list_code_definition_names", "codebase_search", "browser_action", "use_mcp_tool",
  "access_mcp_resource", "load_mcp_documentation", "web_fetch", "fetch_instructions"
]
const TAG_TOOL = new RegExp(`<(${TAG_TOOLS.join("|")})>([\\s\\S]*?)</\\1>`, "g")
const TAG_PARAMETER = /<([a-z_]+)>([\s\S]*?)<\/\1>/g

/** One value as written between its tags: the line breaks around it are layout, not content. */
const parameterValue = (raw: string): string => raw.replace(/^\n/, "").replace(/\n$/, "")

const xmlActions = (text: string): Array<HarnessAction> =>
  [...text.matchAll(XML_FUNCTION)].map((m) => ({
    name: m[1]!,
    input: Object.fromEntries([...m[2]!.matchAll(XML_PARAMETER)].map((p) => [p[1]!, parameterValue(p[2]!)]))
  }))

const tagActions = (text: string): Array<HarnessAction> =>
  [...text.matchAll(TAG_TOOL)].map((m) => ({
    name: m[1]!,
    input: Object.fromEntries([...m[2]!.matchAll(TAG_PARAMETER)].map((p) => [p[1]!, parameterValue(p[2]!)]))
  }))

const fencedCommands = (text: string): Array<HarnessAction> =>
  [...text.matchAll(FENCED)]
    .filter((m) => SHELL_INFO.has(m[1]!.trim().toLowerCase()) && m[2]!.trim() !== "")
    .map((m) => ({ name: "bash", input: { command: m[2]!.trim() } }))

/** The one call a reply writes as markup (an XML function or a tool tag); null for none, undefined for several. */
export const markupActionOf = (text: string): HarnessAction | null | undefined => {
  const written = [...xmlActions(text), ...tagActions(text)]
  return written.length === 0 ? null : written.length === 1 ? written[0]! : undefined
}

/** The one action a reply's text asks its harness to run, or null (none, or more than one). */
export const harnessActionOf = (text: string): HarnessAction | null => {
  const markup = markupActionOf(text)
  if (markup !== null) return markup ?? null
  const fenced = fencedCommands(text)
  return fenced.length === 1 ? fenced[0]! : null
}

const RETURN_CODE = /^\s*<returncode>\s*(-?\d+)\s*<\/returncode>/

// How each harness wraps what an action printed: mini-SWE-agent's returncode, SWE-agent 1.x's
// "OBSERVATION:" head, SWE-agent 0.x's shell prompt at the end, Cline's and Roo Code's
// "[tool for '…'] Result:" head.
const RESULT_HEAD = /^\s*(?:<returncode>\s*-?\d+\s*<\/returncode>|OBSERVATION:|\[[a-z_]+(?: for [^\]\n]*)?\] Result:)/
const RESULT_TAIL = /\(Current directory: [^)\n]*\)\s*bash-\$\s*$/

/**
 * Whether a user message is a harness's report of what an action printed (in one of the wrappings
 * above), not a person's words: a person answering a reply that suggests a command is steering.
 */
export const isHarnessResult = (text: string): boolean => RESULT_HEAD.test(text.slice(0, 300)) || RESULT_TAIL.test(text.slice(-300))

/** The exit status a harness put at the head of an action's result (mini-SWE-agent's `<returncode>`), or undefined. */
export const harnessExitCode = (result: string): number | undefined => {
  const m = RETURN_CODE.exec(result.slice(0, 200))
  return m === null ? undefined : Number.parseInt(m[1]!, 10)
}
