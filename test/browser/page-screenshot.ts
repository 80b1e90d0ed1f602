/**
 * Remakes docs/audit-page.png, the README's picture of a run's page: the hand-written Claude Code
 * log of the reader tests, audited, drawn by headless Chromium (Debian's chromium, .ci/chromium.sh)
 * at 1000 × 1000, top of the page.
 *
 *   bun run test/browser/page-screenshot.ts
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { chromiumPath, launchChromium } from "./chromium.js"
import { writePageOf } from "./run-pages.js"

const root = resolve(import.meta.dir, "../..")
const chromium = chromiumPath()
if (chromium === null) throw new Error("no chromium: run .ci/chromium.sh")
const dir = mkdtempSync(join(tmpdir(), "lg-shot-"))
const browser = await launchChromium(chromium)
try {
  const file = join(dir, "claude-code-run.html")
  const log = "packages/core/src/trace/formats/fixtures/claude-code.jsonl"
  await writePageOf(join(root, log), file, log)
  const page = await browser.newPage()
  await page.setViewport({ width: 1000, height: 1000 })
  await page.goto(pathToFileURL(file).href, { waitUntil: "load" })
  await page.waitForSelector("body[data-ready]")
  const png = await page.screenshot({ type: "png" })
  writeFileSync(join(root, "docs/audit-page.png"), png)
  console.log(`docs/audit-page.png: ${png.byteLength} bytes`)
} finally {
  await browser.close()
  rmSync(dir, { recursive: true, force: true })
}
