import { describe, expect, test } from "bun:test"
import { harnessActionOf, harnessExitCode, isHarnessResult } from "./harness-actions.js"

describe("harnessActionOf", () => {
  test("mini-SWE-agent: one bash block after the thought", () => {
    const text = "THOUGHT: find the function first.\n\n```bash\ngrep -r \"get_order_dir\" django\n```"
    expect(harnessActionOf(text)).toEqual({ name: "bash", input: { command: 'grep -r "get_order_dir" django' } })
  })

  test("SWE-agent 0.x: one bare fenced block of commands", () => {
    expect(harnessActionOf("Let's create the file.\n\n```\ncreate reproduce.java\n```\n")).toEqual({ name: "bash", input: { command: "create reproduce.java" } })
  })

  test("SWE-agent 1.x: one XML function with its parameters", () => {
    const text = "Let's look.\n\n<function=str_replace_editor>\n<parameter=command>view</parameter>\n<parameter=path>/testbed/django/forms/fields.py</parameter>\n</function>"
    expect(harnessActionOf(text)).toEqual({ name: "str_replace_editor", input: { command: "view", path: "/testbed/django/forms/fields.py" } })
  })

  test("a multi-line parameter keeps its lines, not the line breaks around it", () => {
    const text = "<function=bash>\n<parameter=command>\ncd /testbed\npython -m pytest -x\n</parameter>\n</function>"
    expect(harnessActionOf(text)).toEqual({ name: "bash", input: { command: "cd /testbed\npython -m pytest -x" } })
  })

  test("Cline and Roo Code: one tool named by its tag, its parameters as child tags, the thinking beside it left out", () => {
    const text = "<thinking>\nThe tests must run first.\n</thinking>\n\n<execute_command>\n<command>npm test</command>\n<requires_approval>false</requires_approval>\n</execute_command>"
    expect(harnessActionOf(text)).toEqual({ name: "execute_command", input: { command: "npm test", requires_approval: "false" } })
    expect(harnessActionOf("<read_file>\n<path>src/main.js</path>\n</read_file>")).toEqual({ name: "read_file", input: { path: "src/main.js" } })
  })

  test("a tool that hands the turn to the person is not an action: what follows is the person's answer", () => {
    expect(harnessActionOf("<attempt_completion>\n<result>Done.</result>\n</attempt_completion>")).toBeNull()
    expect(harnessActionOf("<ask_followup_question>\n<question>Which file?</question>\n</ask_followup_question>")).toBeNull()
  })

  test("two tool tags in one reply are two actions: none is taken", () => {
    expect(harnessActionOf("<read_file>\n<path>a.js</path>\n</read_file>\n<execute_command>\n<command>ls</command>\n</execute_command>")).toBeNull()
  })

  test("no action: prose, a code block in another language, an empty block, an unclosed fence", () => {
    expect(harnessActionOf("The fix is done.")).toBeNull()
    expect(harnessActionOf("Here is the patch:\n```python\nprint(1)\n```")).toBeNull()
    expect(harnessActionOf("```bash\n\n```")).toBeNull()
    expect(harnessActionOf("```bash\nls -la\n")).toBeNull()
  })

  test("two actions in one reply are a format error to these harnesses: none is taken", () => {
    expect(harnessActionOf("```bash\nls\n```\nthen\n```bash\npwd\n```")).toBeNull()
    expect(harnessActionOf("<function=bash><parameter=command>ls</parameter></function><function=bash><parameter=command>pwd</parameter></function>")).toBeNull()
  })

  test("a python block beside the one shell block does not count", () => {
    expect(harnessActionOf("The code:\n```python\nx = 1\n```\nRun it:\n```bash\npython x.py\n```")).toEqual({ name: "bash", input: { command: "python x.py" } })
  })

  test("never throws on odd input", () => {
    for (const text of ["", "```", "<function=>", "<function=x>", "```bash\n```\n```", "\u0000".repeat(10), "<function=a><parameter=b>"]) expect(() => harnessActionOf(text)).not.toThrow()
  })
})

describe("harnessExitCode", () => {
  test("mini-SWE-agent's returncode at the head of the result", () => {
    expect(harnessExitCode("<returncode>1</returncode>\n<output>\nTraceback\n</output>")).toBe(1)
    expect(harnessExitCode("<returncode>0</returncode>\n<output>\n</output>")).toBe(0)
  })

  test("none elsewhere, or quoted later in the output", () => {
    expect(harnessExitCode("all good")).toBeUndefined()
    expect(harnessExitCode("output\n<returncode>2</returncode>")).toBeUndefined()
  })
})

describe("isHarnessResult", () => {
  test("each harness's wrapping of what an action printed", () => {
    expect(isHarnessResult("<returncode>0</returncode>\n<output>\nok\n</output>")).toBe(true)
    expect(isHarnessResult("OBSERVATION:\nFile created successfully.")).toBe(true)
    expect(isHarnessResult("[File: /repo/a.py (3 lines total)]\n1:x\n(Open file: /repo/a.py)\n(Current directory: /repo)\nbash-$")).toBe(true)
    expect(isHarnessResult("[execute_command for 'npm test'] Result:\nCommand executed.")).toBe(true)
    expect(isHarnessResult("[read_file] Result:\n1 | x")).toBe(true)
  })

  test("a person's words are not a result, whatever they quote", () => {
    for (const text of ["continue", "It still fails the same way.", "Here is the output:\nOBSERVATION: it broke", "why does it say <returncode>1</returncode>?", ""]) expect(isHarnessResult(text)).toBe(false)
  })
})
