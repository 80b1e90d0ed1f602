/**
 * `audit --html OUT`: the page of each run, written as its audit finishes, and for a folder the
 * index of them all (rules in html/page-files.ts, docs/audit.md).
 */
import type { AuditResult } from "@loopguard/effect/audit"
import { Effect } from "effect"
import { makeFolder } from "@loopguard/effect/store"
import { dirname, join } from "node:path"
import { RunFailed } from "../errors.js"
import { inputAt, writeOutputFile } from "../output-file.js"
import { collectRunPage } from "../html/collect-page.js"
import { renderIndexPage, type IndexRow } from "../html/index-page.js"
import { indexPath, pageNames } from "../html/page-files.js"
import { renderRunPage } from "../html/run-page.js"

export interface HtmlTarget {
  readonly out: string
  readonly folder: boolean
  /** Page file name per input, in input order (folder mode). */
  readonly names: ReadonlyArray<string>
}

export const htmlTarget = (out: string, folder: boolean, files: ReadonlyArray<string>): HtmlTarget => ({ out, folder, names: pageNames(files) })

const write = (path: string, text: string) =>
  Effect.try({ try: () => writeOutputFile(path, text), catch: (e) => new RunFailed({ message: `--html ${path}: cannot write: ${(e as Error).message}`, exitCode: 2 }) })

/** Every file the target writes: its page, or a page per run and the index. */
const pagePaths = (t: HtmlTarget): ReadonlyArray<string> => (t.folder ? [...t.names.map((n) => join(t.out, n)), indexPath(t.out)] : [t.out])

/** Refuses a target that would write over one of the logs it is made from: the page would be all that is left of it. */
export const refuseOverwritingInputs = (t: HtmlTarget, inputs: ReadonlyArray<string>) => {
  for (const page of pagePaths(t)) {
    const input = inputAt(page, inputs)
    if (input === undefined) continue
    const which = page === t.out ? "the page" : `the page ${page}`
    return Effect.fail(new RunFailed({ message: `--html ${t.out}: ${which} would overwrite the input ${input} (write it elsewhere)`, exitCode: 2 }))
  }
  return Effect.void
}

/** Creates the target's folder, or the page's (before any audit, so a bad OUT is told at once). */
export const prepareTarget = (t: HtmlTarget) =>
  Effect.try({
    try: () => makeFolder(t.folder ? t.out : dirname(t.out)),
    catch: (e) => new RunFailed({ message: `--html ${t.out}: cannot create the folder: ${(e as Error).message}`, exitCode: 2 })
  })

const firstIncident = (r: AuditResult): Pick<IndexRow, "firstIncident" | "firstIncidentStep"> => {
  const i = r._tag === "audited" ? r.incidents[0] : undefined
  return i === undefined ? { firstIncident: "", firstIncidentStep: null } : { firstIncident: `step ${i.step} ${i.detector} → ${i.action}`, firstIncidentStep: i.step }
}

/** The index row of a result. */
export const indexRow = (r: AuditResult, href: string | undefined): IndexRow =>
  r._tag === "failed"
    ? { file: r.file, format: "", steps: 0, incidents: 0, ...firstIncident(r), outcome: `failed: ${r.errors[0] ?? ""}` }
    : {
        file: r.file,
        ...(href !== undefined ? { href } : {}),
        format: r.format,
        steps: r.steps,
        incidents: r.incidents.length,
        ...firstIncident(r),
        outcome: r.exit === null ? "no exit" : `${r.exit.reason} at step ${r.exit.step}`
      }

/** Writes the page of result `k` (read from `path`); its index row. A file that failed gets no page. */
export const writeRunPage = (t: HtmlTarget, k: number, r: AuditResult, path: string, maxLineBytes: number) =>
  Effect.gen(function* () {
    if (r._tag === "failed") return indexRow(r, undefined)
    const page = yield* collectRunPage(r, path, maxLineBytes).pipe(Effect.mapError((message) => new RunFailed({ message, exitCode: 1 })))
    const name = t.names[k]!
    yield* write(t.folder ? join(t.out, name) : t.out, renderRunPage(page))
    return indexRow(r, name)
  })

export const writeIndex = (t: HtmlTarget, rows: ReadonlyArray<IndexRow>) => (t.folder ? write(indexPath(t.out), renderIndexPage(rows)) : Effect.void)
