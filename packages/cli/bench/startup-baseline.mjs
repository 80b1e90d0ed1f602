// The start-up baseline for test/bench/cli-startup.ts: a bare program that imports the packages the
// loopguard CLI depends on (effect, effect/cli, @effect/platform-node, ai and the two providers), from
// the same entry points, uses one name of each, and runs an empty effect/cli command on the Node
// runtime. Bundled with the same bundler settings as the CLI. The session stores' drivers
// (@effect/sql-pg) are left out, so the CLI carries them and the ratio errs against it.
import { createOpenAI } from "@ai-sdk/openai"
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { streamText } from "ai"
import { Effect, Layer, Schema, Stream } from "effect"
import { Command } from "effect/cli"

const used = [createOpenAI, createOpenAICompatible, streamText, Layer.empty, Schema.String, Stream.empty]
const root = Command.make("baseline", {}, () => Effect.sync(() => process.stdout.write(`${used.length}\n`)))
NodeRuntime.runMain(Command.run(root, { version: "0.0.0" }).pipe(Effect.provide(NodeServices.layer)))
