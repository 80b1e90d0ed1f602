/**
 * Test resources as scoped Effects: each is released when the test's scope closes, whether the test
 * passed or failed (see effect-test.ts).
 */
import { startScriptedServer, type Script, type ScriptedServer } from "@loopguard/ai-sdk/testing"
import { Effect, type Scope } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** A scripted OpenAI-compatible server on 127.0.0.1, closed with the scope. */
export const scriptedServer = (script: Script, options?: Parameters<typeof startScriptedServer>[1]): Effect.Effect<ScriptedServer, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(() => startScriptedServer(script, options)),
    (server) => Effect.promise(() => server.close())
  )

/** A fresh folder under the OS temp dir, removed with the scope. */
export const tempDir = (prefix: string): Effect.Effect<string, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), prefix))),
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  )

/** A running child: Bun's `Subprocess` or node's `ChildProcess`. */
type Child = { readonly exitCode: number | null; readonly signalCode?: unknown; kill(signal?: NodeJS.Signals): unknown }

/** Settles when `child` has exited (Bun: `exited`; node: its "close" event). */
const exitOf = (child: Child): Promise<unknown> =>
  "exited" in child ? (child.exited as Promise<unknown>) : new Promise((done) => (child as unknown as NodeJS.EventEmitter).once("close", done))

/**
 * `child`, killed with SIGKILL when the scope closes if it is still running; the scope waits for it
 * to be gone, so nothing the test started outlives the test.
 */
export const killOnClose = <C extends Child>(child: C): Effect.Effect<C, never, Scope.Scope> => {
  const exited = exitOf(child)
  return Effect.as(
    Effect.addFinalizer(() =>
      Effect.promise(async () => {
        if (child.exitCode !== null || (child.signalCode ?? null) !== null) return
        child.kill("SIGKILL")
        await exited
      })
    ),
    child
  )
}
