/**
 * A model call's prompt in tokens, estimated as the RunLoop estimates its requests (core's
 * `estimateTokens` over what is sent: the messages, system included, and the tools). A server that
 * sends no usage still read the whole prompt, and billed it: a step is charged this estimate.
 * Lazy: the JSON is made only when a step turns out to need it.
 */
import { estimateTokens } from "@loopguard/core/context"

export const promptTokensOf =
  (params: { readonly prompt: unknown; readonly tools?: unknown }) =>
  (): number =>
    estimateTokens(JSON.stringify(params.prompt) + JSON.stringify(params.tools ?? []))
