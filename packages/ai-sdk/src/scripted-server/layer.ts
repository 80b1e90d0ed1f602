/**
 * The scripted model as an LLM Layer: a local OpenAI-compatible HTTP server that plays a script,
 * consumed through the real provider, so demos and tests exercise the same code as a real endpoint.
 */
import type { LLM } from "@loopguard/effect"
import { Effect, Layer } from "effect"
import { layerOpenAICompatible } from "../providers.js"
import { startScriptedServer } from "./server.js"
import type { Script, ScriptedServer, ScriptedServerOptions } from "./types.js"

/** The scripted model over local HTTP; the server lives as long as the Layer's scope. */
export const layerScripted = (
  script: Script,
  options?: ScriptedServerOptions & { readonly onServer?: (server: ScriptedServer) => void }
): Layer.Layer<LLM> =>
  Layer.unwrap(
    Effect.acquireRelease(
      Effect.promise(() => startScriptedServer(script, options)),
      (server) => Effect.promise(() => server.close())
    ).pipe(
      Effect.map((server) => {
        options?.onServer?.(server)
        return layerOpenAICompatible({ baseURL: server.baseURL, modelId: server.modelId, providerId: "scripted" })
      })
    )
  )
