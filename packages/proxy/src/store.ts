/** `@loopguard/proxy/store`: the proxy's state kept in the session store's database (the shared backoff). */
export { sharedBackoff, sqlBackoff } from "./store-backoff.js"
