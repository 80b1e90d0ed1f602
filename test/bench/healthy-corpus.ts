/**
 * The long-period rule on healthy third-party text: every file is read in place (nothing is
 * copied into the repository) and fed, whole, to a fresh LongRepeatMonitor as if a model had
 * written it in one reply. Any trip is a false alarm. The corpus:
 *   docs       Markdown under node_modules (READMEs, CHANGELOGs with numbered lists and tables) and docs/
 *   dts        TypeScript declaration files under node_modules (typescript's lib.*.d.ts included)
 *   source     JavaScript/TypeScript sources under node_modules and this repository's packages/
 *   json       JSON files under node_modules (package manifests, schemas, data tables)
 *   replies    assistant replies of ≥ 1 000 characters from the development traces, outside
 *              every labelled intra-generation episode
 *   minified   files of the categories above holding a line of 5 000+ characters: machine output
 *              (bundled CSS, wasm as base64), reported apart, not text a model writes
 *   changelogs Debian package changelogs under /usr/share/doc (versions, dates, bug numbers)
 *   data       tables from the machine: CSV/TSV/TXT test data of Python packages (hex and float
 *              columns), glibc charmaps and locales (unicode tables), Python's codec tables
 *   python     Python's standard library sources
 * The last three exist only where those system files are installed; they are read if present.
 *
 *   bun run test/bench/healthy-corpus.ts [TRACE_DIR] [--json] [--verbose]
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { gunzipSync } from "node:zlib"
import { join, relative } from "node:path"
import { LongRepeatMonitor, type LongRepeatTrip } from "../../packages/core/src/repeat/long-repeat-monitor.js"

const ROOT = join(import.meta.dir, "..", "..")
/** Files larger than this are cut (head kept): generated bundles are not model replies. */
const MAX_FILE_CHARS = 2_000_000
/** A file with a line this long is minified or embedded machine output (wasm as base64, bundled CSS). */
const MINIFIED_LINE_CHARS = 5_000

const isMinified = (text: string): boolean => {
  let start = 0
  while (start < text.length) {
    let end = text.indexOf("\n", start)
    if (end === -1) end = text.length
    if (end - start > MINIFIED_LINE_CHARS) return true
    start = end + 1
  }
  return false
}

export type Category = "docs" | "dts" | "source" | "json" | "replies" | "minified" | "changelogs" | "data" | "python"

interface Doc {
  readonly category: Category
  readonly name: string
  readonly text: string
}

const walk = (dir: string, out: Array<string>, seen: Set<string>): void => {
  let entries: Array<import("node:fs").Dirent>
  try {
    entries = readdirSync(dir, { withFileTypes: true, encoding: "utf8" })
  } catch {
    return
  }
  for (const e of entries) {
    const path = join(dir, e.name)
    let isDir = e.isDirectory()
    let isFile = e.isFile()
    if (e.isSymbolicLink()) {
      try {
        const s = statSync(path)
        isDir = s.isDirectory()
        isFile = s.isFile()
      } catch {
        continue
      }
    }
    if (isDir) {
      if (seen.has(path)) continue
      seen.add(path)
      walk(path, out, seen)
    } else if (isFile) out.push(path)
  }
}

const categoryOf = (path: string): Category | null => {
  if (path.endsWith(".d.ts") || path.endsWith(".d.mts") || path.endsWith(".d.cts")) return "dts"
  if (path.endsWith(".md")) return "docs"
  if (path.endsWith(".json")) return "json"
  if (/\.(m?js|cjs|ts|tsx)$/.test(path) && !path.endsWith(".min.js")) return "source"
  return null
}

export const corpusFiles = (): Array<{ category: Category; path: string }> => {
  const paths: Array<string> = []
  walk(join(ROOT, "node_modules", ".bun"), paths, new Set())
  walk(join(ROOT, "docs"), paths, new Set())
  walk(join(ROOT, "packages"), paths, new Set())
  const out: Array<{ category: Category; path: string }> = []
  for (const path of paths.sort()) {
    if (path.includes(join(ROOT, "packages")) && path.includes("node_modules")) continue
    // Source maps are machine output (VLQ runs), not text a model writes.
    if (path.endsWith(".map")) continue
    const category = categoryOf(path)
    if (category !== null) out.push({ category, path })
  }
  return out
}

/** Text files of the machine outside this repository (see the header); gzip is read through. */
const SYSTEM_SOURCES: ReadonlyArray<{ readonly category: Category; readonly dir: string; readonly match: RegExp }> = [
  { category: "changelogs", dir: "/usr/share/doc", match: /\/changelog[^/]*\.gz$/ },
  { category: "data", dir: "/usr/share/i18n", match: /\/(charmaps|locales)\/[^/]+$/ },
  { category: "data", dir: "/usr/lib/python3.11/encodings", match: /\/cp\d+\.py$|\/mac_\w+\.py$|\/iso8859_\d+\.py$/ },
  { category: "data", dir: join(process.env.HOME ?? "/root", ".pyenv"), match: /site-packages\/.*\.(csv|tsv|txt)$/ },
  { category: "python", dir: "/usr/lib/python3.11", match: /\.py$/ }
]

export const systemFiles = (): Array<{ category: Category; path: string }> => {
  const out: Array<{ category: Category; path: string }> = []
  const taken = new Set<string>()
  for (const { category, dir, match } of SYSTEM_SOURCES) {
    if (!existsSync(dir)) continue
    const paths: Array<string> = []
    walk(dir, paths, new Set())
    for (const path of paths.sort()) {
      if (!match.test(path) || taken.has(path)) continue
      taken.add(path)
      out.push({ category, path })
    }
  }
  return out
}

const readText = (path: string): string => {
  const bytes = readFileSync(path)
  return (path.endsWith(".gz") ? gunzipSync(bytes) : bytes).toString("utf8")
}

interface Labels {
  readonly files: Record<string, { readonly segments: ReadonlyArray<{ readonly kind: string; readonly start_step: number; readonly end_step: number }> }>
}

export const traceReplies = (dir: string): Array<Doc> => {
  let labels: Labels
  try {
    labels = JSON.parse(readFileSync(join(dir, "labels.json"), "utf8")) as Labels
  } catch {
    return []
  }
  const out: Array<Doc> = []
  for (const [file, label] of Object.entries(labels.files)) {
    const looping = label.segments.filter((s) => s.kind === "intra_generation_repetition")
    let step = 0
    for (const line of readFileSync(join(dir, file), "utf8").split("\n")) {
      if (line.trim() === "") continue
      const record = JSON.parse(line) as { type?: string; text?: string; reasoning?: string }
      if (record.type !== "assistant") continue
      const text = (record.reasoning ?? "") + (record.text ?? "")
      const inLoop = looping.some((s) => step >= s.start_step && step <= s.end_step)
      if (!inLoop && text.length >= 1_000) out.push({ category: "replies", name: `${file}#${step}`, text })
      step++
    }
  }
  return out
}

export interface CorpusRow {
  readonly category: Category
  readonly files: number
  readonly chars: number
  readonly trips: number
}

export const runCorpus = (
  traceDir: string,
  onTrip: (doc: Doc, trip: LongRepeatTrip) => void = () => {},
  categories: ReadonlySet<Category> | null = null
) => {
  const rows = new Map<Category, { files: number; chars: number; trips: number }>()
  const feed = (doc: Doc) => {
    const row = rows.get(doc.category) ?? { files: 0, chars: 0, trips: 0 }
    rows.set(doc.category, row)
    const text = doc.text.slice(0, MAX_FILE_CHARS)
    const trip = new LongRepeatMonitor().push(text)
    row.files++
    row.chars += text.length
    if (trip !== null) {
      row.trips++
      onTrip({ ...doc, text }, trip)
    }
  }
  // The same file is reachable through several links of the package store: count it once.
  const seen = new Set<string>()
  const system = categories === null ? systemFiles() : systemFiles().filter((f) => categories.has(f.category))
  for (const { category, path } of [...corpusFiles(), ...system]) {
    if (categories !== null && !categories.has(category)) continue
    let text: string
    try {
      text = readText(path)
    } catch {
      continue
    }
    const key = `${text.length}:${Bun.hash(text)}`
    if (seen.has(key)) continue
    seen.add(key)
    feed({ category: isMinified(text) ? "minified" : category, name: path.startsWith(ROOT) ? relative(ROOT, path) : path, text })
  }
  if (categories === null || categories.has("replies")) for (const doc of traceReplies(traceDir)) feed(doc)
  return [...rows.entries()].map(([category, r]): CorpusRow => ({ category, ...r }))
}

export const main = () => {
  const args = process.argv.slice(2)
  const dir = args.find((a) => !a.startsWith("--")) ?? join(ROOT, "..", "shared", "traces")
  if (traceReplies(dir).length === 0) console.error(`no trace replies read from ${dir}`)
  const verbose = args.includes("--verbose")
  const started = performance.now()
  const rows = runCorpus(dir, (doc, trip) => {
    if (!verbose) return
    const at = Math.max(0, trip.char - 300)
    console.log(`TRIP ${doc.name} ${JSON.stringify(trip)}\n${JSON.stringify(doc.text.slice(at, trip.char + 1))}\n`)
  })
  const seconds = (performance.now() - started) / 1000
  if (args.includes("--json")) {
    console.log(JSON.stringify({ rows, seconds }))
    return
  }
  console.log("| corpus | files | characters | trips |")
  console.log("| --- | ---: | ---: | ---: |")
  for (const r of rows) console.log(`| ${r.category} | ${r.files} | ${r.chars.toLocaleString("en")} | ${r.trips} |`)
  const total = rows.reduce((a, r) => ({ files: a.files + r.files, chars: a.chars + r.chars, trips: a.trips + r.trips }), { files: 0, chars: 0, trips: 0 })
  console.log(`| all | ${total.files} | ${total.chars.toLocaleString("en")} | ${total.trips} |`)
  console.log(`\n${seconds.toFixed(1)} s`)
}

if (import.meta.main) main()
