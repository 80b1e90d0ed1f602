/**
 * Headless Chromium for the page tests: Debian's `chromium` package (installed by .ci/chromium.sh),
 * driven by puppeteer-core, which downloads no browser. CHROMIUM_PATH names another binary.
 */
import puppeteer, { type Browser } from "puppeteer-core"
import { existsSync } from "node:fs"

export const chromiumPath = (): string | null => {
  const given = process.env["CHROMIUM_PATH"]
  if (given !== undefined && given !== "") return existsSync(given) ? given : null
  for (const p of ["/usr/bin/chromium", "/usr/bin/chromium-browser"]) if (existsSync(p)) return p
  return Bun.which("chromium") ?? Bun.which("chromium-browser")
}

/** A headless browser; close it when done (its process ends with it). */
export const launchChromium = (path: string): Promise<Browser> =>
  puppeteer.launch({
    executablePath: path,
    headless: true,
    // Root in a container: no sandbox; a small /dev/shm: use /tmp.
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check"]
  })

/** How many distinct colours a PNG has (drawn in the browser: no image library needed). */
export const distinctColours = async (browser: Browser, png: Uint8Array): Promise<number> => {
  const page = await browser.newPage()
  try {
    await page.setContent("<canvas id=c></canvas>")
    return await page.evaluate(async (b64: string) => {
      const img = new Image()
      img.src = `data:image/png;base64,${b64}`
      await img.decode()
      const c = document.getElementById("c") as HTMLCanvasElement
      c.width = img.width
      c.height = img.height
      const ctx = c.getContext("2d")!
      ctx.drawImage(img, 0, 0)
      const px = ctx.getImageData(0, 0, img.width, img.height).data
      const seen = new Set<number>()
      for (let i = 0; i < px.length; i += 4) seen.add((px[i]! << 16) | (px[i + 1]! << 8) | px[i + 2]!)
      return seen.size
    }, Buffer.from(png).toString("base64"))
  } finally {
    await page.close()
  }
}

/** Width and height from a PNG's header. */
export const pngSize = (png: Uint8Array): { width: number; height: number } => {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength)
  return { width: view.getUint32(16), height: view.getUint32(20) }
}
