/**
 * Every ```ts block of README.md and docs/*.md is a program a reader may paste: each is written to
 * a scratch folder inside the workspace (so `@loopguard/*` and `effect` resolve as in a project)
 * and type-checked by `tsc` with the repository's compiler settings. A block that is only part of a
 * program says so in its fence (```ts fragment); shapes and signatures are ```text.
 */
import { afterAll, expect, test } from "bun:test"
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join, relative, resolve } from "node:path"

const ROOT = resolve(import.meta.dir, "..")
const SCRATCH = join(ROOT, "test", `.doc-snippets-${process.pid}`)
afterAll(() => rmSync(SCRATCH, { recursive: true, force: true }))

interface Snippet {
  readonly doc: string
  readonly line: number
  readonly code: string
}

/** The ```ts blocks (exactly that fence) of one Markdown file, with the line each starts on. */
export const tsBlocks = (doc: string, text: string): Array<Snippet> => {
  const out: Array<Snippet> = []
  const lines = text.split("\n")
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== "```ts") continue
    const end = lines.indexOf("```", i + 1)
    out.push({ doc, line: i + 1, code: lines.slice(i + 1, end).join("\n") })
    i = end
  }
  return out
}

// The packages' own READMEs are what a registry page shows: their blocks compile too.
const packageReadmes = readdirSync(join(ROOT, "packages")).map((p) => `packages/${p}/README.md`).filter((f) => existsSync(join(ROOT, f)))
const docs = ["README.md", ...readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`), ...packageReadmes]
const snippets = docs.flatMap((doc) => tsBlocks(doc, readFileSync(join(ROOT, doc), "utf8")))

test("the fence rule finds the blocks and only them", () => {
  expect(tsBlocks("x.md", "a\n```ts\nconst a = 1\n```\n```ts fragment\nb\n```\n```text\nc\n```").map((s) => s.code)).toEqual(["const a = 1"])
  expect(snippets.map((s) => s.doc)).toContain("README.md")
  expect(snippets.map((s) => s.doc)).toContain("docs/config.md")
  expect(snippets.map((s) => s.doc)).toContain("packages/proxy/README.md")
})

test("every ```ts block in README.md and docs/ compiles", () => {
  mkdirSync(SCRATCH, { recursive: true })
  const files = snippets.map((s, i) => {
    const name = `${i}-${s.doc.replace(/[/.]/g, "_")}-L${s.line}.ts`
    // Each block is its own module (top-level names of two blocks never clash).
    writeFileSync(join(SCRATCH, name), `${s.code}\nexport {}\n`)
    return { name, snippet: s }
  })
  const base = relative(SCRATCH, join(ROOT, "tsconfig.base.json"))
  writeFileSync(
    join(SCRATCH, "tsconfig.json"),
    JSON.stringify({ extends: base, compilerOptions: { composite: false, declaration: false, emitDeclarationOnly: false, noEmit: true, noUnusedLocals: false }, include: ["*.ts"] })
  )
  const tsc = Bun.spawnSync([join(ROOT, "node_modules/.bin/tsc"), "-p", join(SCRATCH, "tsconfig.json")], { cwd: ROOT, stdout: "pipe", stderr: "pipe" })
  // Name each failing block by its document and line, not by the scratch file.
  const report = tsc.stdout.toString().replace(/(\d+)-[^\s(]+-L(\d+)\.ts/g, (_m, i: string) => {
    const f = files[Number(i)]!.snippet
    return `${f.doc} (block at line ${f.line})`
  })
  expect(report).toBe("")
  expect(tsc.exitCode).toBe(0)
}, 180_000)
