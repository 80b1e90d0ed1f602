import { describe, expect, test } from "bun:test"
import { inferFailure } from "./infer-failure.js"

describe("inferFailure", () => {
  test("unambiguous signs of failure", () => {
    expect(inferFailure("Traceback (most recent call last):\n  File x\nValueError: bad")?.id).toBe("traceback")
    expect(inferFailure("ModuleNotFoundError: No module named 'x'")?.id).toBe("exception-line")
    expect(inferFailure("bash: javac: command not found")?.id).toBe("command-not-found")
    expect(inferFailure("cat: foo.txt: No such file or directory")?.id).toBe("no-such-file")
    expect(inferFailure("[INFO] ...\n[ERROR] BUILD FAILURE")?.id).toBe("build-failure")
    expect(inferFailure("Your proposed edit has introduced new syntax error(s).")?.id).toBe("syntax-error-edit")
    expect(inferFailure("ERROR:\nFile already exists at: /app/a.py. Cannot overwrite files using command `create`.")?.id).toBe("editor-error")
    expect(inferFailure("ERROR:\nInvalid `path` parameter: /app/x.py. The path /app/x.py does not exist.")?.id).toBe("editor-error")
    expect(inferFailure("Failed to edit, 0 occurrences found for old_string in /a.py. No edits made.")?.id).toBe("edit-not-applied")
    expect(inferFailure("<tool_use_error>String to replace not found in file.\nString: getUser(id)</tool_use_error>")?.id).toBe("tool-use-error")
    expect(inferFailure("String to replace not found in file.\nString: getUser(id)")?.id).toBe("edit-not-applied")
    expect(inferFailure("<tool_use_error>File has not been read yet.</tool_use_error>")?.id).toBe("tool-use-error")
    expect(inferFailure("Error: oldString not found in content")).not.toBeNull()
  })
  test("source code that mentions errors is not a failure", () => {
    expect(inferFailure("    except ValueError:\n        raise\n")).toBeNull()
    expect(inferFailure("src/a.py:12:    raise TypeError('x')")).toBeNull()
    expect(inferFailure("All 12 tests passed")).toBeNull()
    expect(inferFailure("")).toBeNull()
  })
})
