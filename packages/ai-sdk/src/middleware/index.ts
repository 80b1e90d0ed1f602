export { loopguardMiddleware } from "./middleware.js"
export { LoopguardMiddlewareOptionsError, type LoopguardMiddlewareOptions, type LoopguardTrip, type LoopguardTripEvent, type TripIds } from "./options.js"
