export { loopguardMiddleware } from "./middleware.js"
export { LoopguardMiddlewareOptionsError, type LoopguardMiddlewareOptions, type LoopguardTrip } from "./options.js"
