/**
 * Output files (`audit --html`, `sessions show --html`, `sessions export --out`, chat's `/export`)
 * never write through a symbolic link, a new one is its owner's only, and none is written over
 * the command's own input (the log audited, the session store).
 */
import { afterAll, describe, expect, test } from "bun:test"
import { linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { inputAt, OutputFileError, writeOutputFile } from "./output-file.js"

const dir = mkdtempSync(join(tmpdir(), "loopguard-output-file-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const MAIN = join(import.meta.dir, "main.ts")
const TRACE = join(import.meta.dir, "../../core/src/trace/formats/fixtures/claude-code.jsonl")

/** `loopguard ARGS` in `dir`: its exit code, stdout and stderr. */
const cli = (...args: ReadonlyArray<string>) => {
  const child = Bun.spawnSync([process.execPath, MAIN, ...args], { cwd: dir, stdout: "pipe", stderr: "pipe" })
  return { code: child.exitCode, stdout: child.stdout.toString(), stderr: child.stderr.toString() }
}

/** A file `victim-NAME` and a symlink `NAME` pointing at it. */
const plantLink = (name: string) => {
  const victim = join(dir, `victim-${name}`)
  writeFileSync(victim, "VICTIM")
  symlinkSync(victim, join(dir, name))
  return victim
}

describe("writeOutputFile", () => {
  test("a new file is made 0600; a symbolic link at the path is refused and its target left alone", () => {
    const fresh = join(dir, "fresh.txt")
    writeOutputFile(fresh, "text")
    expect(statSync(fresh).mode & 0o777).toBe(0o600)
    expect(readFileSync(fresh, "utf8")).toBe("text")
    const victim = plantLink("unit-link.txt")
    expect(() => writeOutputFile(join(dir, "unit-link.txt"), "overwritten")).toThrow(OutputFileError)
    expect(readFileSync(victim, "utf8")).toBe("VICTIM")
  })
})

describe("inputAt", () => {
  test("finds the input an output path names, by any spelling; none for another or a new file", () => {
    const log = join(dir, "input-log.jsonl")
    writeFileSync(log, "{}\n")
    symlinkSync(log, join(dir, "input-link.jsonl"))
    linkSync(log, join(dir, "input-hard.jsonl"))
    writeFileSync(join(dir, "other.jsonl"), "{}\n")
    expect(inputAt(join(dir, ".", "input-log.jsonl"), [join(dir, "other.jsonl"), log])).toBe(log)
    expect(inputAt(join(dir, "input-link.jsonl"), [log])).toBe(log)
    expect(inputAt(join(dir, "input-hard.jsonl"), [log])).toBe(log)
    expect(inputAt(join(dir, "other.jsonl"), [log])).toBeUndefined()
    expect(inputAt(join(dir, "not-yet.html"), [log, join(dir, "missing.jsonl")])).toBeUndefined()
  })
})

describe("the commands that write files", () => {
  test("audit --html over an input (the page itself, or a page of a folder) is refused, exit 2; the log is kept", () => {
    writeFileSync(join(dir, "audited.jsonl"), readFileSync(TRACE))
    const same = cli("audit", "audited.jsonl", "--html", `${dir}/audited.jsonl`)
    expect(same.code).toBe(2)
    expect(same.stderr).toContain(`--html ${dir}/audited.jsonl: the page would overwrite the input audited.jsonl`)
    writeFileSync(join(dir, "audited.html"), readFileSync(TRACE))
    const inFolder = cli("audit", "audited.html", "audited.jsonl", "--html", ".")
    expect(inFolder.code).toBe(2)
    expect(inFolder.stderr).toContain("--html .: the page audited.html would overwrite the input audited.html")
    expect(readFileSync(join(dir, "audited.jsonl"))).toEqual(readFileSync(TRACE))
    expect(readFileSync(join(dir, "audited.html"))).toEqual(readFileSync(TRACE))
  }, 60_000)

  test("sessions export --out and show --html over the store's own file are refused, exit 2; the store is kept", () => {
    expect(cli("sessions", "import", TRACE, "--session-dir", "kept", "--as", "s1").code).toBe(0)
    const exported = cli("sessions", "export", "s1", "--session-dir", "kept", "--out", "kept/sessions.db")
    expect(exported.code).toBe(2)
    expect(exported.stderr).toContain("--out kept/sessions.db: would overwrite the session store's file")
    const shown = cli("sessions", "show", "s1", "--session-dir", "kept", "--html", "./kept/sessions.db")
    expect(shown.code).toBe(2)
    expect(shown.stderr).toContain("--html ./kept/sessions.db: would overwrite the session store's file")
    expect(cli("sessions", "export", "s1", "--session-dir", "kept", "--out", "kept.jsonl").code).toBe(0)
  }, 60_000)

  test("audit --html: a symlink is refused (exit 2, named); a new page is 0600", () => {
    const victim = plantLink("page.html")
    const refused = cli("audit", TRACE, "--html", "page.html")
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain("--html page.html")
    expect(refused.stderr).toContain("symbolic link")
    expect(readFileSync(victim, "utf8")).toBe("VICTIM")
    expect(cli("audit", TRACE, "--html", "new.html").code).toBe(0)
    expect(statSync(join(dir, "new.html")).mode & 0o777).toBe(0o600)
  }, 60_000)

  test("sessions show --html DIR, an existing folder (or ending in /), writes DIR/<session id>.html, as audit --html does; a link there is refused", () => {
    expect(cli("sessions", "import", TRACE, "--session-dir", "folder-store", "--as", "s.1").code).toBe(0)
    mkdirSync(join(dir, "pages"))
    const shown = cli("sessions", "show", "s.1", "--session-dir", "folder-store", "--html", "pages")
    expect([shown.code, shown.stderr]).toEqual([0, ""])
    expect(shown.stdout).toStartWith("wrote pages/s.1.html: ")
    expect(readFileSync(join(dir, "pages", "s.1.html"), "utf8")).toStartWith("<!doctype html>")
    expect(statSync(join(dir, "pages", "s.1.html")).mode & 0o777).toBe(0o600)
    // A folder that is not there yet, named with a trailing slash, is made.
    expect(cli("sessions", "show", "s.1", "--session-dir", "folder-store", "--html", "new-pages/").stdout).toStartWith("wrote new-pages/s.1.html: ")
    expect(readFileSync(join(dir, "new-pages", "s.1.html"), "utf8")).toStartWith("<!doctype html>")
    const victim = join(dir, "victim-page")
    writeFileSync(victim, "VICTIM")
    mkdirSync(join(dir, "linked"))
    symlinkSync(victim, join(dir, "linked", "s.1.html"))
    const refused = cli("sessions", "show", "s.1", "--session-dir", "folder-store", "--html", "linked")
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain("--html linked/s.1.html: cannot write: linked/s.1.html is a symbolic link")
    expect(readFileSync(victim, "utf8")).toBe("VICTIM")
  }, 60_000)

  test("sessions export --out and sessions show --html: a symlink is refused (exit 2); a new export is 0600", () => {
    expect(cli("sessions", "import", TRACE, "--session-dir", "store", "--as", "s1").code).toBe(0)
    const victim = plantLink("export.jsonl")
    const exported = cli("sessions", "export", "s1", "--session-dir", "store", "--out", "export.jsonl")
    expect(exported.code).toBe(2)
    expect(exported.stderr).toContain("--out export.jsonl")
    const shown = cli("sessions", "show", "s1", "--session-dir", "store", "--html", "export.jsonl")
    expect(shown.code).toBe(2)
    expect(readFileSync(victim, "utf8")).toBe("VICTIM")
    expect(cli("sessions", "export", "s1", "--session-dir", "store", "--out", "new.jsonl").code).toBe(0)
    expect(statSync(join(dir, "new.jsonl")).mode & 0o777).toBe(0o600)
  }, 60_000)
})
