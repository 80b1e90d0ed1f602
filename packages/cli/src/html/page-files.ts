/**
 * Where `--html OUT` writes. One run and OUT not a folder: OUT is its page. Several runs, a
 * folder among the inputs, or OUT an existing folder or ending in "/": OUT is a folder holding
 * one page per run (named after its file; repeats get -2, -3 …) and index.html.
 */
import { basename, extname, join } from "node:path"

export const wantsFolder = (out: string, runs: number, folderInput: boolean, outIsDir: boolean): boolean =>
  runs > 1 || folderInput || outIsDir || out.endsWith("/")

/** A name made of letters, digits, `.`, `_` and `-` only (runs of anything else become one `_`). */
const safeName = (name: string): string => name.replace(/[^A-Za-z0-9._-]+/g, "_")

/** A page name per input file, unique within the folder (index.html stays free). */
export const pageNames = (files: ReadonlyArray<string>): Array<string> => {
  const used = new Set<string>(["index"])
  return files.map((f) => {
    const base = safeName(basename(f, extname(f)) || "run")
    let name = base
    for (let k = 2; used.has(name); k++) name = `${base}-${k}`
    used.add(name)
    return `${name}.html`
  })
}

export const indexPath = (dir: string): string => join(dir, "index.html")

/**
 * `sessions show ID --html DIR`: the page's name in the folder, from the session id, made safe as
 * audit's page names are (a sub-agent's `parent/task-3-1` is `parent_task-3-1.html`); no leading
 * dot (a hidden file, or `..`).
 */
export const sessionPageName = (sessionId: string): string => `${safeName(sessionId).replace(/^\.+/, "") || "session"}.html`
