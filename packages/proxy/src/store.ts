/** `@loopguard/proxy/store`: the proxy's state kept in the session store's database (the shared backoff, the request log). */
export { sharedState, sqlBackoff, sqlRequestLog, type SharedState } from "./store-state.js"
