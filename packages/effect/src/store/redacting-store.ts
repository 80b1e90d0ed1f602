/**
 * A SessionStore decorator that redacts every message before it is kept: what is on disk (or in
 * a database) never holds the configured secrets or Authorization/Bearer credentials, whatever
 * path a string took to get there.
 */
import { redactDeep } from "@loopguard/core/try-best"
import type { SessionStoreShape } from "./SessionStore.js"

export const redactingStore = (store: SessionStoreShape, redact: (text: string) => string): SessionStoreShape => ({
  ...store,
  append: (sessionId, message) => store.append(sessionId, redactDeep(message, redact)),
  putAssistant: (sessionId, message) => store.putAssistant(sessionId, redactDeep(message, redact)),
  exclude: (sessionId, messageId, reason) => store.exclude(sessionId, messageId, redactDeep(reason, redact)),
  addCrop: (sessionId, userMessageId, crop) => store.addCrop(sessionId, userMessageId, redactDeep(crop, redact))
})
