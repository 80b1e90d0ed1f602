/**
 * Every observable thing a session does is a typed event on one PubSub, so a UI, a logger or
 * a test can follow a run without reaching into services.
 */
import { Context, Effect, Layer, PubSub, Schema, Stream } from "effect"

const Step = Schema.Int

/**
 * Who an event is about, on every event a run publishes: the session, and the provider and model
 * of the call it came from. Optional in the schema so events made by hand (tests, audits) still
 * decode; the RunLoop and the SessionProcessor always set them (`stampIds`).
 */
const Ids = {
  sessionId: Schema.optional(Schema.String),
  provider: Schema.optional(Schema.String),
  modelId: Schema.optional(Schema.String)
}

export const StepStarted = Schema.Struct({ ...Ids, type: Schema.Literal("step.started"), step: Step, attempt: Schema.Int })
export const StreamProgress = Schema.Struct({ ...Ids, type: Schema.Literal("stream.progress"), step: Step, tokens: Schema.Int, text: Schema.String })
export const StepFinished = Schema.Struct({
  ...Ids,
  type: Schema.Literal("step.finished"),
  step: Step,
  outcome: Schema.String,
  finish: Schema.String,
  /** What the step cost, its replayed attempts included, as the run's meter counts it (estimated for a step cut short). */
  tokens: Schema.optional(Schema.Struct({ input: Schema.Number, output: Schema.Number, total: Schema.Number, estimated: Schema.Boolean }))
})
export const StepClassified = Schema.Struct({
  ...Ids,
  type: Schema.Literal("step.classified"),
  step: Step,
  class: Schema.String,
  degraded: Schema.Boolean,
  reason: Schema.String
})
export const Recovery = Schema.Struct({
  ...Ids,
  type: Schema.Literal("recovery"),
  step: Step,
  action: Schema.String,
  kind: Schema.optional(Schema.String),
  text: Schema.optional(Schema.String)
})
export const ToolStarted = Schema.Struct({
  ...Ids,
  type: Schema.Literal("tool.started"),
  step: Step,
  callId: Schema.String,
  name: Schema.String,
  input: Schema.Unknown
})
export const ToolFinished = Schema.Struct({
  ...Ids,
  type: Schema.Literal("tool.finished"),
  step: Step,
  callId: Schema.String,
  name: Schema.String,
  state: Schema.Literals(["completed", "error"]),
  exitCode: Schema.optional(Schema.Int),
  durationMs: Schema.Number
})
export const IncidentEvent = Schema.Struct({
  ...Ids,
  type: Schema.Literal("incident"),
  step: Step,
  detector: Schema.String,
  action: Schema.String,
  /** loop | stall | recovery | fault (core's `incidentKind`). */
  kind: Schema.Literals(["loop", "stall", "recovery", "fault"]),
  detail: Schema.Unknown
})
export const RetryAttempt = Schema.Struct({
  ...Ids,
  type: Schema.Literal("session.retry.attempt"),
  phase: Schema.Literals(["request", "stream"]),
  scope: Schema.String,
  kind: Schema.String,
  attempt: Schema.Int,
  maxRetries: Schema.NullOr(Schema.Int),
  delayMs: Schema.Number,
  message: Schema.String
})
export const RetryTerminal = Schema.Struct({
  ...Ids,
  type: Schema.Literal("session.retry.terminal"),
  kind: Schema.String,
  message: Schema.String,
  /** The failure in words for people, with what to do (the message is the provider's own). */
  uiMessage: Schema.optional(Schema.String)
})
export const TryBestDetected = Schema.Struct({
  provider: Ids.provider,
  modelId: Ids.modelId,
  type: Schema.Literal("session.try_best.detected"),
  step: Step,
  sessionId: Schema.String,
  /** The agent that was paused (its role: main, subagent, checkpoint). */
  agent: Schema.String,
  /** The model the paused agent was running. */
  model: Schema.String,
  incident: Schema.Unknown
})
/** The session's status for a UI: one attempt number across both retry phases, reset when idle. */
export const SessionStatus = Schema.Struct({
  ...Ids,
  type: Schema.Literal("session.status"),
  status: Schema.Literals(["busy", "retry", "idle"]),
  attempt: Schema.Int,
  delayMs: Schema.optional(Schema.Number)
})
export const RunFinished = Schema.Struct({ ...Ids, type: Schema.Literal("run.finished"), report: Schema.Unknown })

/** Every event a session publishes, as one Schema union. */
export const LoopguardEvent = Schema.Union([
  StepStarted,
  StreamProgress,
  StepFinished,
  StepClassified,
  Recovery,
  ToolStarted,
  ToolFinished,
  IncidentEvent,
  RetryAttempt,
  RetryTerminal,
  TryBestDetected,
  SessionStatus,
  RunFinished
])
export type LoopguardEvent = typeof LoopguardEvent.Type

/** The ids stamped on events published in the current fiber (set around a run and a model call). */
export interface EventIds {
  readonly sessionId?: string
  readonly provider?: string
  readonly modelId?: string
}

export const CurrentEventIds = Context.Reference<EventIds>("loopguard/CurrentEventIds", { defaultValue: () => ({}) })

/** Runs `effect` with `ids` laid over the current ones for every event it publishes through a stamped `Events`. */
export const withEventIds =
  (ids: EventIds) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.gen(function* () {
      const outer = yield* CurrentEventIds
      return yield* Effect.provideService(effect, CurrentEventIds, { ...outer, ...ids })
    })

/** `events` with the current ids on each event it publishes (whatever Layer provides it); an event's own fields win. */
export const stampIds = (events: Events["Service"]): Events["Service"] => ({
  ...events,
  publish: (event) =>
    Effect.gen(function* () {
      const ids = yield* CurrentEventIds
      yield* events.publish({ ...ids, ...event } as LoopguardEvent)
    })
})

/** One typed PubSub of everything a session does; a UI, logger or test follows a run through it. */
export class Events extends Context.Service<
  Events,
  {
    readonly publish: (event: LoopguardEvent) => Effect.Effect<void>
    readonly subscribe: Stream.Stream<LoopguardEvent>
    /**
     * Whether anyone receives what is published now. Frequent events (stream progress) are only
     * built while this holds; absent means always (a layer that cannot tell).
     */
    readonly listening?: () => boolean
  }
>()("loopguard/Events") {
  static readonly layer = Layer.effect(
    Events,
    Effect.gen(function* () {
      const hub = yield* PubSub.unbounded<LoopguardEvent>()
      let subscribers = 0
      return Events.of({
        publish: (event) => PubSub.publish(hub, event).pipe(Effect.asVoid),
        subscribe: Stream.suspend(() => {
          subscribers += 1
          return Stream.fromPubSub(hub).pipe(Stream.ensuring(Effect.sync(() => void (subscribers -= 1))))
        }),
        listening: () => subscribers > 0
      })
    })
  )

  /**
   * Events that call `onEvent` for every event, synchronously and in publish order (CLI rendering,
   * collecting into an array in a test), and publish nowhere else: `Layer.succeed(Events, Events.make(f))`.
   */
  static readonly make = (onEvent: (event: LoopguardEvent) => void) =>
    Events.of({ publish: (event) => Effect.sync(() => onEvent(event)), subscribe: Stream.empty })

  /** @deprecated Use `Layer.succeed(Events, Events.make((event) => sink.push(event)))`; this alias goes in the next release. */
  static readonly layerCollect = (sink: Array<LoopguardEvent>) => Layer.succeed(Events, Events.make((event) => void sink.push(event)))

  /** @deprecated Use `Layer.succeed(Events, Events.make(f))`; this alias goes in the next release. */
  static readonly layerCallback = (f: (event: LoopguardEvent) => void) => Layer.succeed(Events, Events.make(f))
}
