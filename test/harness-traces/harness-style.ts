/**
 * How five agent harnesses record one step in trace format v1: their tool names, argument shapes
 * and the way each prints a command's exit status. A scenario says what the agent did (run a
 * command, edit a file, read, think, poll); a style turns it into the lines that harness would
 * have logged. Written from the harnesses' public tool documentation, not copied from any trace.
 */

/** What the agent did in one step, harness-neutral. */
export type Act =
  | { readonly kind: "shell"; readonly command: string; readonly output: string; readonly exit: number }
  | { readonly kind: "poll"; readonly output: string }
  | { readonly kind: "edit"; readonly path: string; readonly before: string; readonly after: string; readonly ok?: boolean }
  | { readonly kind: "write"; readonly path: string; readonly content: string }
  | { readonly kind: "read"; readonly path: string; readonly content: string }
  | { readonly kind: "search"; readonly pattern: string; readonly output: string }
  | { readonly kind: "think"; readonly thought: string }
  | { readonly kind: "todo"; readonly items: ReadonlyArray<string> }
  | { readonly kind: "finish"; readonly message: string }

export interface ToolCallLine {
  readonly name: string
  readonly input: unknown
}
export interface ToolResultLine {
  readonly output: string
  readonly exitCode?: number
  readonly path?: string
  readonly diff?: string
}
export interface Rendered {
  readonly call: ToolCallLine
  readonly result: ToolResultLine
}

export type HarnessName = "openhands" | "gemini-cli" | "opencode" | "claude-code" | "codex" | "swe-agent" | "mini-swe-agent"
/** The second evaluation set's harnesses (terminal tasks). */
export const HARNESSES: ReadonlyArray<HarnessName> = ["openhands", "gemini-cli", "opencode", "claude-code", "codex"]
/** The precision set's harnesses (issue fixing in a repository). */
export const PRECISION_HARNESSES: ReadonlyArray<HarnessName> = ["swe-agent", "openhands", "codex", "claude-code", "mini-swe-agent"]

const diffOf = (path: string, before: string, after: string): string =>
  `--- a${path}\n+++ b${path}\n@@ -1,1 +1,1 @@\n-${before}\n+${after}\n`

/** OpenHands: execute_bash with the status printed at the end, str_replace_editor, think, finish. */
const openhands = (act: Act): Rendered => {
  // Newer OpenHands runtimes add the working directory, the interpreter and a second status line.
  const status = (exit: number) => `\n[The command completed with exit code ${exit}.]\n[Current working directory: /workspace]\n[Python interpreter: /usr/bin/python]\n[Command finished with exit code ${exit}]`
  switch (act.kind) {
    case "shell":
      return { call: { name: "execute_bash", input: { command: act.command, is_input: "false", timeout: 120 } }, result: { output: act.output + status(act.exit) } }
    case "poll":
      return { call: { name: "execute_bash", input: { command: "", is_input: "true" } }, result: { output: act.output } }
    case "edit":
      return {
        call: { name: "str_replace_editor", input: { command: "str_replace", path: act.path, old_str: act.before, new_str: act.after } },
        result: act.ok === false
          ? { output: `ERROR:\nNo replacement was performed, old_str \`${act.before}\` did not appear verbatim in ${act.path}.` }
          : { output: `The file ${act.path} has been edited. Here's the result of running \`cat -n\` on a snippet of ${act.path}:\n     1\t${act.after}\nReview the changes and make sure they are as expected.`, path: act.path }
      }
    case "write":
      return { call: { name: "str_replace_editor", input: { command: "create", path: act.path, file_text: act.content } }, result: { output: `File created successfully at: ${act.path}`, path: act.path } }
    case "read":
      return { call: { name: "str_replace_editor", input: { command: "view", path: act.path } }, result: { output: `Here's the result of running \`cat -n\` on ${act.path}:\n${numbered(act.content)}` } }
    case "search":
      return { call: { name: "execute_bash", input: { command: `grep -rn '${act.pattern}' .`, is_input: "false" } }, result: { output: act.output + status(act.output === "" ? 1 : 0) } }
    case "think":
      return { call: { name: "think", input: { thought: act.thought } }, result: { output: "Your thought has been logged." } }
    case "todo":
      return { call: { name: "task_tracker", input: { command: "plan", task_list: act.items.map((t, i) => ({ id: String(i + 1), title: t, status: "todo" })) } }, result: { output: `Task list has been updated with ${act.items.length} items.` } }
    case "finish":
      return { call: { name: "finish", input: { message: act.message } }, result: { output: "" } }
  }
}

const numbered = (content: string): string =>
  content
    .split("\n")
    .map((l, i) => `${String(i + 1).padStart(6)}\t${l}`)
    .join("\n")

/** Gemini CLI / Qwen Code: run_shell_command with a report block, replace, write_file, read_file. */
const geminiCli = (act: Act): Rendered => {
  const report = (command: string, out: string, exit: number) =>
    `Command: ${command}\nDirectory: (root)\nOutput: ${out === "" ? "(empty)" : out}\nError: (none)\nExit Code: ${exit}\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: ${4000 + command.length}`
  switch (act.kind) {
    case "shell":
      return { call: { name: "run_shell_command", input: { command: act.command, description: "Run a command" } }, result: { output: report(act.command, act.output, act.exit) } }
    case "poll":
      return { call: { name: "run_shell_command", input: { command: "sleep 30 && tail -n 5 /tmp/job.log", description: "Check on the job" } }, result: { output: report("sleep 30 && tail -n 5 /tmp/job.log", act.output, 0) } }
    case "edit":
      return {
        call: { name: "replace", input: { file_path: act.path, old_string: act.before, new_string: act.after } },
        result: act.ok === false
          ? { output: `Failed to edit, 0 occurrences found for old_string in ${act.path}. No edits made.` }
          : { output: `Successfully modified file: ${act.path} (1 replacements).` }
      }
    case "write":
      return { call: { name: "write_file", input: { file_path: act.path, content: act.content } }, result: { output: `Successfully created and wrote to new file: ${act.path}.` } }
    case "read":
      return { call: { name: "read_file", input: { absolute_path: act.path } }, result: { output: act.content } }
    case "search":
      return {
        call: { name: "search_file_content", input: { pattern: act.pattern } },
        result: { output: act.output === "" ? `No matches found for pattern "${act.pattern}" in path ".".` : `Found matches for pattern "${act.pattern}":\n${act.output}` }
      }
    case "think":
      return { call: { name: "save_memory", input: { fact: act.thought } }, result: { output: "Okay, I've remembered that." } }
    case "todo":
      return { call: { name: "write_todos", input: { todos: act.items } }, result: { output: "Updated the todo list." } }
    case "finish":
      return { call: { name: "complete_task", input: { summary: act.message } }, result: { output: "" } }
  }
}

/** OpenCode and Claude Code share shapes; tool names differ in case. Exit codes are recorded. */
const opencodeLike = (names: { bash: string; edit: string; write: string; read: string; grep: string; todo: string }) => (act: Act): Rendered => {
  switch (act.kind) {
    case "shell":
      return { call: { name: names.bash, input: { command: act.command, description: "run" } }, result: { output: act.output, exitCode: act.exit } }
    case "poll":
      return { call: { name: names.bash, input: { command: "sleep 20; tail -n 5 /tmp/job.log", description: "check progress" } }, result: { output: act.output, exitCode: 0 } }
    case "edit":
      return {
        call: { name: names.edit, input: { file_path: act.path, old_string: act.before, new_string: act.after } },
        result: act.ok === false
          ? { output: "Error: oldString not found in content", exitCode: 1 }
          : { output: "Edit applied successfully.", path: act.path, diff: diffOf(act.path, act.before, act.after) }
      }
    case "write":
      return { call: { name: names.write, input: { file_path: act.path, content: act.content } }, result: { output: "File written.", path: act.path, diff: `--- /dev/null\n+++ b${act.path}\n@@ -0,0 +1,1 @@\n+${act.content.split("\n")[0]}\n` } }
    case "read":
      return { call: { name: names.read, input: { file_path: act.path } }, result: { output: `<file>\n${numbered(act.content)}\n</file>` } }
    case "search":
      return { call: { name: names.grep, input: { pattern: act.pattern, path: "." } }, result: { output: act.output === "" ? "No files found" : act.output } }
    case "think":
      return { call: { name: names.todo, input: { todos: [{ content: act.thought, status: "in_progress" }] } }, result: { output: "Todos have been modified successfully." } }
    case "todo":
      return { call: { name: names.todo, input: { todos: act.items.map((t) => ({ content: t, status: "pending" })) } }, result: { output: "Todos have been modified successfully." } }
    case "finish":
      return { call: { name: names.bash, input: { command: "git status --short", description: "final check" } }, result: { output: " M src/main.py", exitCode: 0 } }
  }
}

/** Codex: `shell` with an argv, the status printed first; edits through apply_patch. */
const codex = (act: Act): Rendered => {
  const shell = (command: string, out: string, exit: number): Rendered => ({
    call: { name: "shell", input: { command: ["bash", "-lc", command], workdir: "/workspace", timeout_ms: 120000 } },
    result: { output: `Exit code: ${exit}\nWall time: 0.4 seconds\nOutput:\n${out}` }
  })
  switch (act.kind) {
    case "shell":
      return shell(act.command, act.output, act.exit)
    case "poll":
      return shell("sleep 30; tail -n 5 /tmp/job.log", act.output, 0)
    case "edit": {
      const patch = `*** Begin Patch\n*** Update File: ${act.path}\n@@\n-${act.before}\n+${act.after}\n*** End Patch`
      return {
        call: { name: "apply_patch", input: { input: patch } },
        result: act.ok === false ? { output: `error: Failed to find expected lines in ${act.path}`, exitCode: 1 } : { output: `Success. Updated the following files:\nM ${act.path}`, path: act.path }
      }
    }
    case "write":
      return { call: { name: "apply_patch", input: { input: `*** Begin Patch\n*** Add File: ${act.path}\n+${act.content}\n*** End Patch` } }, result: { output: `Success. Updated the following files:\nA ${act.path}`, path: act.path } }
    case "read":
      return shell(`sed -n '1,200p' ${act.path}`, act.content, 0)
    case "search":
      return shell(`rg -n '${act.pattern}'`, act.output, act.output === "" ? 1 : 0)
    case "think":
      return { call: { name: "update_plan", input: { plan: [{ step: act.thought, status: "in_progress" }] } }, result: { output: "Plan updated" } }
    case "todo":
      return { call: { name: "update_plan", input: { plan: act.items.map((s) => ({ step: s, status: "pending" })) } }, result: { output: "Plan updated" } }
    case "finish":
      return shell("git diff --stat", " src/main.py | 4 ++--", 0)
  }
}

/**
 * SWE-agent 1.x: `bash` and `str_replace_editor`, no exit status recorded (failure is read from
 * the output), and the requested diff kept on every edit, refused or not, as its logs convert.
 */
const sweAgent = (act: Act): Rendered => {
  const bash = (command: string, out: string): Rendered => ({ call: { name: "bash", input: { command } }, result: { output: out === "" ? "Your command ran successfully and did not produce any output." : out } })
  switch (act.kind) {
    case "shell":
      return bash(act.command, act.output)
    case "poll":
      return bash("sleep 30 && tail -n 5 /tmp/job.log", act.output)
    case "edit":
      return {
        call: { name: "str_replace_editor", input: { command: "str_replace", path: act.path, old_str: act.before, new_str: act.after } },
        result: {
          output: act.ok === false
            ? `No replacement was performed, old_str \`${act.before}\` did not appear verbatim in ${act.path}.`
            : `The file ${act.path} has been edited. Here's the result of running \`cat -n\` on a snippet of ${act.path}:\n    12\t${act.after}\nReview the changes and make sure they are as expected. Edit the file again if necessary.`,
          path: act.path,
          diff: diffOf(act.path, act.before, act.after)
        }
      }
    case "write":
      return { call: { name: "str_replace_editor", input: { command: "create", path: act.path, file_text: act.content } }, result: { output: `File created successfully at: ${act.path}`, path: act.path, diff: `--- /dev/null\n+++ b${act.path}\n@@ -0,0 +1,1 @@\n+${act.content.split("\n")[0]}\n` } }
    case "read":
      return { call: { name: "str_replace_editor", input: { command: "view", path: act.path } }, result: { output: `Here's the result of running \`cat -n\` on ${act.path}:\n${numbered(act.content)}` } }
    case "search":
      return bash(`grep -rn '${act.pattern}' /testbed --include=*.py`, act.output)
    case "think":
      return bash(`echo '${act.thought.replace(/'/g, "")}'`, act.thought.replace(/'/g, ""))
    case "todo":
      return bash(`echo '${act.items.join("; ")}'`, act.items.join("; "))
    case "finish":
      return { call: { name: "submit", input: {} }, result: { output: "diff --git a/src/main.py b/src/main.py\n--- a/src/main.py\n+++ b/src/main.py" } }
  }
}

/** mini-SWE-agent: one `bash` tool, the exit status recorded; edits are shell commands (sed, heredocs). */
const miniSweAgent = (act: Act): Rendered => {
  const bash = (command: string, out: string, exit: number): Rendered => ({ call: { name: "bash", input: { command } }, result: { output: out, exitCode: exit } })
  switch (act.kind) {
    case "shell":
      return bash(act.command, act.output, act.exit)
    case "poll":
      return bash("sleep 30 && tail -n 5 /tmp/job.log", act.output, 0)
    case "edit":
      return act.ok === false
        ? bash(`python3 - <<'EOF'\np='${act.path}'\ns=open(p).read()\nassert '${act.before}' in s, 'pattern not found'\nopen(p,'w').write(s.replace('${act.before}','${act.after}'))\nEOF`, `Traceback (most recent call last):\n  File "<stdin>", line 3, in <module>\nAssertionError: pattern not found`, 1)
        : bash(`sed -i 's/${act.before.replace(/[/'\\]/g, ".")}/${act.after.replace(/[/'\\]/g, ".")}/' ${act.path}`, "", 0)
    case "write":
      return bash(`cat <<'EOF' > ${act.path}\n${act.content}\nEOF`, "", 0)
    case "read":
      return bash(`nl -ba ${act.path} | sed -n '1,120p'`, numbered(act.content), 0)
    case "search":
      return bash(`grep -rn '${act.pattern}' .`, act.output, act.output === "" ? 1 : 0)
    case "think":
      return bash(`echo '${act.thought.replace(/'/g, "")}'`, act.thought.replace(/'/g, ""), 0)
    case "todo":
      return bash(`echo '${act.items.join("; ")}'`, act.items.join("; "), 0)
    case "finish":
      return bash("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached --stat", "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n src/main.py | 2 +-", 0)
  }
}

export const STYLES: Readonly<Record<HarnessName, (act: Act) => Rendered>> = {
  "swe-agent": sweAgent,
  "mini-swe-agent": miniSweAgent,
  openhands,
  "gemini-cli": geminiCli,
  opencode: opencodeLike({ bash: "bash", edit: "edit", write: "write", read: "read", grep: "grep", todo: "todowrite" }),
  "claude-code": opencodeLike({ bash: "Bash", edit: "Edit", write: "Write", read: "Read", grep: "Grep", todo: "TodoWrite" }),
  codex
}
