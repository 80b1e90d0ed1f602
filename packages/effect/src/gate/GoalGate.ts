/**
 * The evaluator behind the goal gate (docs/run-loop.md): a separate, tool-less call to the model that
 * judges whether the user's goal is met. Fails open: if the evaluator errors, the run may finish
 * (the error is reported as an incident by the RunLoop), because a broken judge must not trap a
 * finished run.
 */
import { GOAL_GATE_SYSTEM, goalGatePrompt, parseGoalVerdict, type GoalVerdict } from "@loopguard/core/gate"
import { Context, Effect, Layer, Stream } from "effect"
import { LLM } from "../llm/LLM.js"

export interface GoalGateInput {
  readonly goal: string
  readonly answer: string
  readonly work: ReadonlyArray<string>
}

/** The goal gate: an evaluator call judging a final answer against the user's goal. */
export class GoalGate extends Context.Service<GoalGate, { readonly judge: (input: GoalGateInput) => Effect.Effect<GoalVerdict> }>()(
  "loopguard/GoalGate"
) {
  /** Judged by the session's own model. */
  static readonly layer = Layer.effect(
    GoalGate,
    Effect.gen(function* () {
      const llm = yield* LLM
      return GoalGate.of({
        judge: Effect.fn("GoalGate.judge")(function* (input: GoalGateInput) {
          const text = yield* llm
            .stream({ system: GOAL_GATE_SYSTEM, messages: [{ role: "user", text: goalGatePrompt(input.goal, input.answer, input.work) }], tools: [] })
            .pipe(
              Stream.runFold(
                () => "",
                (acc, part) =>
                  part.type === "text-delta"
                    ? acc + part.text
                    : part.type === "error"
                      ? `(the evaluator failed: ${part.error.message}; the run is allowed to finish)`
                      : acc
              ),
              Effect.catch((e) => Effect.succeed(`(the evaluator failed: ${e.message}; the run is allowed to finish)`))
            )
          return parseGoalVerdict(text)
        })
      })
    })
  )

  /** A gate with a judge of one's own (tests, or a runtime with its own evaluator): `Layer.succeed(GoalGate, GoalGate.make(judge))`. */
  static readonly make = (judge: (input: GoalGateInput) => Effect.Effect<GoalVerdict>) => GoalGate.of({ judge })

  /** @deprecated Use `Layer.succeed(GoalGate, GoalGate.make(judge))`; this alias goes in the next release. */
  static readonly layerFrom = (judge: (input: GoalGateInput) => Effect.Effect<GoalVerdict>) => Layer.succeed(GoalGate, GoalGate.make(judge))
}
