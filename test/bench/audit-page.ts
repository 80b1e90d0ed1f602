/**
 * The page of a 10,000-step run (`loopguard audit --html`): how long the audit and the page's
 * making take, the page's size (target < 20 MB), and how long headless Chromium takes to open it
 * until its first steps are drawn (target < 2 s; median of 5 opens). Needs Debian's chromium
 * (.ci/chromium.sh); without it the browser figure is left out, said so.
 *
 *   bun run test/bench/audit-page.ts [STEPS]
 */
import { auditConfig, auditFile } from "@loopguard/effect/audit"
import { Effect } from "effect"
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { collectRunPage } from "../../packages/cli/src/html/collect-page.js"
import { renderRunPage } from "../../packages/cli/src/html/run-page.js"
import { chromiumPath, launchChromium } from "../browser/chromium.js"
import { writeLongTrace } from "../browser/run-pages.js"
import { median, verdict } from "./lib/measure.js"

const openMs = async (chromium: string, file: string, times: number): Promise<Array<number>> => {
  const browser = await launchChromium(chromium)
  try {
    const out: Array<number> = []
    for (let i = 0; i < times; i++) {
      const page = await browser.newPage()
      await page.setViewport({ width: 1200, height: 900 })
      const t0 = performance.now()
      await page.goto(pathToFileURL(file).href, { waitUntil: "load", timeout: 60_000 })
      await page.waitForSelector("body[data-ready]", { timeout: 60_000 })
      out.push(performance.now() - t0)
      await page.close()
    }
    return out
  } finally {
    await browser.close()
  }
}

export const main = async (steps = 10_000): Promise<void> => {
  const dir = mkdtempSync(join(tmpdir(), "lg-bench-page-"))
  try {
    const trace = writeLongTrace(dir, steps)
    const config = auditConfig()
    const t0 = performance.now()
    const r = await Effect.runPromise(auditFile(trace, config))
    if (r._tag !== "audited") throw new Error(r.errors.join("\n"))
    const t1 = performance.now()
    const page = await Effect.runPromise(collectRunPage(r, trace, config.input.maxLineBytes))
    const html = renderRunPage(page)
    const file = join(dir, "page.html")
    writeFileSync(file, html)
    const t2 = performance.now()
    const bytes = statSync(file).size
    console.log(`audit page, ${steps} steps, ${r.incidents.length} incidents: audit ${((t1 - t0) / 1000).toFixed(1)} s, page made in ${((t2 - t1) / 1000).toFixed(1)} s`)
    console.log(`  page size: ${(bytes / 1e6).toFixed(1)} MB (target < 20 MB: ${verdict(bytes, 20e6)})`)
    const chromium = chromiumPath()
    if (chromium === null) return console.log("  open time: not measured (no chromium; .ci/chromium.sh installs it)")
    const times = await openMs(chromium, file, 5)
    const m = median(times)
    console.log(`  open in Chromium until the first steps are drawn: median ${Math.round(m)} ms of ${times.map((t) => Math.round(t)).join(", ")} (target < 2000 ms: ${verdict(m, 2000)})`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.main) await main(Number(process.argv[2] ?? 10_000))
