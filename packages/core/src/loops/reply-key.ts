/**
 * The streak key of a finished reply (reasoning-loop cropping, docs/loops.md). Reasoning is where a reasoning loop lives, so when
 * a reply has reasoning the key is its reasoning alone: replies whose tool arguments drift slightly
 * still belong to the same streak. Without reasoning, the exact tool signature is the key.
 */
import { sha256 } from "@noble/hashes/sha2.js"
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js"
import { reasoningOf, toolSignature, type AssistantMessage } from "../model/message.js"
import { foldText } from "./normalize.js"

/** Hex digits of the SHA-256 kept in a `reason:` key. */
export const REASON_HASH_HEX = 16

/** First 16 hex digits of SHA-256 over the folded (trimmed, lowercased, whitespace-collapsed) text. */
export const reasoningHash = (reasoning: string): string => {
  const folded = foldText(reasoning)
  if (folded.length === 0) return ""
  return bytesToHex(sha256(utf8ToBytes(folded))).slice(0, REASON_HASH_HEX)
}

/**
 * Keys of replies already keyed: the streak detector keys the same history's replies at every step
 * (a message is a value, never changed in place, so its key stays).
 */
const keyed = new WeakMap<AssistantMessage, string>()

/** `reason:<hash>` | `tool:<signature>` | "" (a text-only or empty reply has no key). */
export const replyKey = (message: AssistantMessage): string => {
  const known = keyed.get(message)
  if (known !== undefined) return known
  const hash = reasoningHash(reasoningOf(message))
  const tools = hash === "" ? toolSignature(message) : ""
  const key = hash !== "" ? `reason:${hash}` : tools === "" ? "" : `tool:${tools}`
  keyed.set(message, key)
  return key
}
