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

/** A child process (Bun's or node's) that is killed with SIGKILL when the scope closes, if it is still running. */
export const killOnClose = <C extends { readonly exitCode: number | null; kill(signal?: NodeJS.Signals): unknown }>(child: C): Effect.Effect<C, never, Scope.Scope> =>
  Effect.as(
    Effect.addFinalizer(() => Effect.sync(() => void (child.exitCode === null && child.kill("SIGKILL")))),
    child
  )
