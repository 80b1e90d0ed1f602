/**
 * Every examples/*.ts runs with bun inside the workspace and exits 0, so the examples cannot rot.
 * (CI also runs them on Node >= 22 from the packed tarballs: .ci/outside-proof.sh.)
 */
import { describe, expect, test } from "bun:test"
import { readdirSync } from "node:fs"
import { join, resolve } from "node:path"

const dir = resolve(import.meta.dir, "../examples")
const examples = readdirSync(dir).filter((f) => f.endsWith(".ts")).sort()

describe("examples", () => {
  test("there are examples to run", () => {
    expect(examples.length).toBeGreaterThan(0)
  })

  for (const file of examples) {
    test(
      file,
      async () => {
        const child = Bun.spawn([process.execPath, join(dir, file)], { cwd: resolve(dir, ".."), stdout: "pipe", stderr: "pipe" })
        const killer = setTimeout(() => child.kill(), 60_000)
        const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
        clearTimeout(killer)
        if (code !== 0) console.error(`${file} exited ${code}\n${stdout}\n${stderr}`)
        expect(code).toBe(0)
      },
      90_000
    )
  }
})
