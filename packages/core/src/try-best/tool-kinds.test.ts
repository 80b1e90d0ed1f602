import { describe, expect, test } from "bun:test"
import { DEFAULT_TRY_BEST_OPTIONS } from "./options.js"
import { commandContent, editPathOf, failed, isNoMatch, printedExitCode, shellTextOf, toolRole } from "./tool-kinds.js"

const role = (name: string, input: unknown, diff?: string) => toolRole({ name, input, ...(diff !== undefined ? { diff } : {}) }, DEFAULT_TRY_BEST_OPTIONS)

describe("toolRole: every harness's vocabulary", () => {
  test("OpenHands", () => {
    expect(role("exec_command", { cmd: "node test.js", workdir: "/repo" })).toBe("shell")
    expect(role("execute_bash", { command: "ls", is_input: "false", timeout: 30 })).toBe("shell")
    expect(role("execute_bash", { command: "", is_input: "true" })).toBe("shell")
    for (const c of ["create", "str_replace", "insert"]) expect([c, role("str_replace_editor", { command: c, path: "/a.py" })]).toEqual([c, "edit"])
    expect(role("str_replace_editor", { command: "view", path: "/a.py" })).toBe("read")
    expect(role("str_replace_editor", { command: "undo_edit", path: "/a.py" })).toBe("read")
    expect(role("execute_ipython_cell", { code: "print(1)" })).toBe("shell")
    expect(role("think", { thought: "hmm" })).toBe("bookkeeping")
    expect(role("finish", { message: "done" })).toBe("other")
    expect(role("browser", { code: "goto('http://x')" })).toBe("read")
  })

  test("Codex", () => {
    expect(role("shell", { command: ["bash", "-lc", "npm test"] })).toBe("shell")
    expect(role("shell", { command: ["apply_patch", "*** Begin Patch"] })).toBe("edit")
    expect(role("apply_patch", { input: "*** Begin Patch" })).toBe("edit")
    expect(role("update_plan", { plan: [] })).toBe("bookkeeping")
    expect(shellTextOf({ input: { command: ["bash", "-lc", "npm test"] } })).toBe("bash -lc npm test")
  })

  test("Gemini CLI / Qwen Code", () => {
    expect(role("run_shell_command", { command: "make" })).toBe("shell")
    expect(role("replace", { file_path: "/a.py", old_string: "a", new_string: "b" })).toBe("edit")
    expect(role("write_file", { file_path: "/a.py", content: "x" })).toBe("edit")
    for (const t of ["read_file", "read_many_files", "glob", "search_file_content"]) expect([t, role(t, { pattern: "x" })]).toEqual([t, "read"])
    expect(role("save_memory", { fact: "x" })).toBe("bookkeeping")
  })

  test("OpenCode and Claude Code", () => {
    for (const t of ["bash", "Bash"]) expect(role(t, { command: "ls" })).toBe("shell")
    for (const t of ["edit", "Edit", "MultiEdit", "write", "Write"]) expect([t, role(t, { file_path: "/a" })]).toEqual([t, "edit"])
    for (const t of ["read", "Read", "grep", "Grep", "glob", "Glob"]) expect([t, role(t, { pattern: "x" })]).toEqual([t, "read"])
    for (const t of ["todowrite", "TodoWrite"]) expect([t, role(t, { todos: [] })]).toEqual([t, "bookkeeping"])
  })

  test("SWE-agent and mini-SWE-agent", () => {
    expect(role("bash", { command: "pytest" })).toBe("shell")
    expect(role("edit", { path: "a.py", start: 1, end: 2, text: "x" }, "@@ -1 +1 @@")).toBe("edit")
    for (const t of ["open", "goto", "scroll_down", "search_dir", "find_file"]) expect([t, role(t, { argv: ["x"] })]).toEqual([t, "read"])
    expect(role("submit", {})).toBe("other")
  })

  test("editPathOf reads each harness's spelling of the path", () => {
    expect(editPathOf({ input: { file_path: "/a" } })).toBe("/a")
    expect(editPathOf({ input: { filePath: "/b" } })).toBe("/b")
    expect(editPathOf({ input: { absolute_path: "/c" } })).toBe("/c")
    expect(editPathOf({ input: { path: "/x" }, path: "/d" })).toBe("/d")
    expect(editPathOf({ input: { text: "x" } })).toBeUndefined()
  })
})

describe("printedExitCode", () => {
  test("reads the status each harness prints", () => {
    expect(printedExitCode("boom\n[The command completed with exit code 2.]")).toBe(2)
    expect(printedExitCode("ok\n[Command finished with exit code 0]")).toBe(0)
    expect(printedExitCode("Command: make\nOutput: x\nError: (none)\nExit Code: 1\nSignal: (none)")).toBe(1)
    expect(printedExitCode("Exit code: 127\nWall time: 0.1 seconds\nOutput:\nbash: foo: command not found")).toBe(127)
    expect(printedExitCode("FAIL\nexit status 1")).toBe(1)
    expect(printedExitCode("ran (exit code 3)")).toBe(3)
    expect(printedExitCode("Exit code 1\nFAIL test/auth.test.ts")).toBe(1)
    expect(printedExitCode("boom\nexit code 2")).toBe(2)
    expect(printedExitCode("npm ERR! test failed\n\nCommand exited with code 1")).toBe(1)
    expect(printedExitCode("done\n[Process exited with code 0]")).toBe(0)
  })

  test("nothing printed, or a code inside the program's own text, is no status", () => {
    expect(printedExitCode(undefined)).toBeUndefined()
    expect(printedExitCode("")).toBeUndefined()
    expect(printedExitCode("the docs say: return exit code 1 on failure")).toBeUndefined()
    expect(printedExitCode("x".repeat(5000) + "\n[The command completed with exit code 0.]")).toBe(0)
    expect(printedExitCode("Exit code: 2\nWall time: 3.1 seconds\nOutput:\n" + "log line\n".repeat(1000))).toBe(2)
  })
})

describe("isNoMatch", () => {
  const noMatch = (command: string, output = "\nExit code: 1") => isNoMatch({ input: { command }, output })
  test("a search alone, or as a pipeline's last stage, that printed nothing matched nothing", () => {
    const searches = [
      "rg -n 'adyen' src",
      "cd /app && grep -rn foo .",
      "bash -lc \"grep -rn 'a|b' src\"",
      "docker run --rm acme/api pip list 2>/dev/null | grep -i '^urllib3 *1\\.'",
      "kubectl get pods -n logging 2>&1 | grep fluentd",
      "grep -E 'a|b' src",
      "ps aux | grep -v grep | grep node",
      "docker compose exec -T worker pgrep -af cleanup.py",
      "kubectl exec -n web api-7d9 -c app -- grep -c OOMKilled /var/log/app.log"
    ]
    for (const c of searches) expect([c, noMatch(c)]).toEqual([c, true])
  })
  test("not when the search is not what set the status, or something was printed", () => {
    for (const c of ["make test", "grep foo src | wc -l", "grep foo && make", "npm test || grep x log", "grep foo src; make"]) expect([c, noMatch(c)]).toEqual([c, false])
    expect(noMatch("ls missing | grep x", "ls: cannot access 'missing'\nExit code: 1")).toBe(false)
    expect(noMatch("grep -c OOMKilled /var/log/a.log /var/log/b.log", "a.log:3\nb.log:0\nExit code: 1")).toBe(false)
  })
  test("pi's and OpenCode's placeholder for nothing printed is nothing", () => {
    expect(noMatch("docker run --rm acme/api pip list | grep -i '^urllib3 1'", "(no output)\n\nCommand exited with code 1")).toBe(true)
    expect(commandContent("(no output)")).toBe("")
  })
  test("a count of 0 (grep -c) found nothing too", () => {
    expect(noMatch("kubectl logs -n web api | grep -c OOMKilled", "0\nExit code: 1")).toBe(true)
    expect(noMatch("grep -c OOMKilled /var/log/a.log /var/log/b.log", "/var/log/a.log:0\n/var/log/b.log:0\nExit code: 1")).toBe(true)
  })
})

describe("commandContent", () => {
  test("an exit status printed as the last line is status, not output: a search that found nothing printed nothing", () => {
    expect(commandContent("\nExit code: 1")).toBe("")
    expect(commandContent("FAIL test_a\nExit code: 1")).toBe("FAIL test_a")
    expect(commandContent("done\nCommand exited with code 2")).toBe("done")
    expect(commandContent("[Process exited with code 1]")).toBe("")
    // Only at the end: a line that quotes one mid-output stays.
    expect(commandContent("Exit code: 1\nretrying")).toBe("Exit code: 1\nretrying")
    const search = { type: "tool" as const, callId: "c", name: "bash", input: { command: "rg -n 'adyen' src" }, state: "completed" as const, output: "\nExit code: 1" }
    expect(failed(search)).toBe(false)
  })
  test("strips the harness's wrapping, keeps what the command printed", () => {
    expect(commandContent("hello\n[The command completed with exit code 0.]")).toBe("hello")
    expect(commandContent("[The command completed with exit code 0.]")).toBe("")
    expect(commandContent("x\n[Current working directory: /app]\n[Command finished with exit code 1]")).toBe("x")
    expect(commandContent("Exit code: 0\nWall time: 0.2 seconds\nOutput:\nabc")).toBe("abc")
    expect(commandContent("Chunk ID: 3ee282\nWall time: 0.0598 seconds\nProcess exited with code 1\nOriginal token count: 5\nOutput:\nFAIL: add(2,2) = 0\n")).toBe("FAIL: add(2,2) = 0")
    const gemini = (out: string, err = "(none)") => `Command: ls\nDirectory: (root)\nOutput: ${out}\nError: ${err}\nExit Code: 0\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 4211`
    expect(commandContent(gemini("(empty)"))).toBe("")
    expect(commandContent(gemini("a.txt"))).toBe("a.txt")
    expect(commandContent(gemini("(empty)", "boom"))).toBe("boom")
    // Qwen Code's code mode leaves the Command line out.
    expect(commandContent("Directory: (root)\nOutput: a.txt\nError: (none)\nExit Code: 0\nSignal: (none)\nProcess Group PGID: 9")).toBe("a.txt")
    expect(commandContent("plain output")).toBe("plain output")
  })
  // As Gemini CLI 0.61 writes it: only the status lines that apply, the whole inside <untrusted_context>.
  test("reads Gemini CLI's newer report, wrapped or not", () => {
    const wrapped = (body: string) => `<untrusted_context>\n${body}\n</untrusted_context>`
    expect(commandContent(wrapped("Output: cat: /nonexistent-file: No such file or directory\nExit Code: 1\nProcess Group PGID: 15785"))).toBe("cat: /nonexistent-file: No such file or directory")
    expect(commandContent(wrapped("Output: line one\nline two\nProcess Group PGID: 7"))).toBe("line one\nline two")
    expect(commandContent(wrapped("Output: (empty)\nProcess Group PGID: 15152"))).toBe("")
    expect(commandContent(wrapped("Output: (empty)\nError: spawn bash ENOENT\nExit Code: 127\nSignal: SIGTERM\nBackground PIDs: 12, 13\nProcess Group PGID: 4"))).toBe("spawn bash ENOENT")
    // Unwrapped, the last status line tells the report from a command that prints "Output: …".
    expect(commandContent("Output: 3 files\nExit Code: 2")).toBe("3 files")
    expect(commandContent("Output: 3 files\nsummary done")).toBe("Output: 3 files\nsummary done")
    // Another tool's wrapped result loses only the tags.
    expect(commandContent(wrapped("# README\nhello"))).toBe("# README\nhello")
  })
})
