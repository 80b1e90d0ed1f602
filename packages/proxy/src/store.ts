/** `@loopguard/proxy/store`: the proxy's state kept in the session store's database (the shared backoff, the request log). */
export { readRequestLog, removeRequestLogs, requestLogOf, sharedState, sqlBackoff, sqlRequestLog, type SharedState, type StoredRequest } from "./store-state.js"
