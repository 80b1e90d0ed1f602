/**
 * A failure in words for the person in front of the tool: what went wrong and what to do, without
 * the provider's jargon (that stays in the error's `message`). One sentence per kind of failure,
 * read from the same classification the retry policy uses. Never throws.
 */
import type { NormalizedError } from "../model/stream.js"
import { classify } from "./decision.js"

const clip = (text: string, n = 160): string => {
  const one = text.replace(/\s+/g, " ").trim()
  return one.length > n ? `${one.slice(0, n - 1)}…` : one
}

const byStatus = (status: number | undefined, message: string): string | undefined => {
  if (status === 401 || status === 403) return `The endpoint refused the credentials (HTTP ${status}): check the API key and the variable that holds it (--api-key-env).`
  if (status === 402) return "The provider asks for payment (HTTP 402): check the account's billing."
  if (status === 404) return "The endpoint or the model was not found (HTTP 404): check the base URL and the model id."
  if (status === 400 || status === 422) return `The endpoint rejected the request (HTTP ${status}): ${clip(message)}`
  if (status === 501 || status === 505) return `The server does not support this request (HTTP ${status}): check that the base URL is an OpenAI-compatible Chat Completions endpoint.`
  return undefined
}

/** The failure in one sentence for people, with what to do; the provider's words stay in `error.message`. */
export const uiMessageOf = (error: NormalizedError): string => {
  const { kind, reason } = classify(error)
  if (reason === "aborted by the user") return "The request was cancelled before the reply finished."
  if (reason === "protocol violation") return "The server did not answer as an OpenAI-compatible endpoint does (a web page, a proxy, or a reply past the size limits): check the base URL."
  if (reason === "context overflow") return "The conversation no longer fits the model's context window."
  if (reason === "quota or credits exhausted") return "The account has run out of quota or credit: add credit, or use another key or provider."
  const status = byStatus(error.status, error.message)
  if (status !== undefined) return status
  if (reason.startsWith("authentication failure")) return "The endpoint refused the credentials: check the API key and the variable that holds it (--api-key-env)."
  if (kind === "network") return `Could not reach the endpoint (${reason.replace(/^connection failure \((.*)\)$/, "$1")}): check the base URL, the network, and that the server is running.`
  if (kind === "rate_limit") return "The provider answered 'too many requests' (rate limit): wait, or lower the request rate."
  if (kind === "server") return `The provider's server kept failing (${reason}): try again later.`
  // The stream came whole but held data that is no chunk (not JSON, or not the shape expected): nothing broke off.
  if (reason.startsWith("unreadable stream chunk")) return "The reply could not be read: the server's stream held data that is not an OpenAI-compatible chunk (not JSON, or not the expected shape): check the base URL, or try again later."
  if (kind === "stream") return "The reply stream kept breaking off before it finished: try again later."
  return `The model request failed: ${clip(error.message)}`
}
