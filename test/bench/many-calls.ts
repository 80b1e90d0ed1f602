/**
 * One reply with many tool calls, end to end: the scripted server streams N `read_file` calls in
 * one reply (distinct inputs, so no loop detector stops them), `loopguard run --json` runs them
 * all, and the wall time is printed for N and 4 N. Linear work gives a ratio near 4; the old
 * per-write redaction of the whole reply made it near 16 (10 000 calls: 474 s).
 *
 *   bun run test/bench/many-calls.ts [N]
 */
import { startScriptedServer, textStream, type ScriptedChunk } from "../../packages/ai-sdk/src/testing.js"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { root } from "./lib/measure.js"

const timeRun = async (n: number): Promise<number> => {
  const chunks: Array<ScriptedChunk> = Array.from({ length: n }, (_, i) => ({ toolCall: { id: `c${i}`, name: "read_file", arguments: JSON.stringify({ path: "f.txt", n: i }), pieces: 1 } }))
  const server = await startScriptedServer([{ type: "stream", chunks }, textStream("done")])
  const cwd = mkdtempSync(join(tmpdir(), "lg-bench-calls-"))
  writeFileSync(join(cwd, "f.txt"), "hello\n")
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("LOOPGUARD_")))
  try {
    const t0 = performance.now()
    const child = Bun.spawn([process.execPath, "run", "packages/cli/src/main.ts", "run", "--base-url", server.baseURL, "--model", "m", "--prompt", "go", "--cwd", cwd, "--json"], { cwd: root, env, stdout: "pipe", stderr: "pipe" })
    const [code, out] = await Promise.all([child.exited, new Response(child.stdout).text()])
    if (code !== 0 || !out.includes('"reason":"final"')) throw new Error(`run of ${n} calls ended ${code}`)
    return performance.now() - t0
  } finally {
    await server.close()
    rmSync(cwd, { recursive: true, force: true })
  }
}

export const main = async (n = 1_000): Promise<void> => {
  const small = await timeRun(n)
  const large = await timeRun(4 * n)
  console.log(`many tool calls in one reply: ${n} calls ${(small / 1000).toFixed(1)} s, ${4 * n} calls ${(large / 1000).toFixed(1)} s, ratio ${(large / small).toFixed(1)} (linear ≈ 4, quadratic ≈ 16; each time includes a CLI start)`)
}

if (import.meta.main) await main(Number(process.argv[2] ?? 1_000))
