/**
 * The hand-off skills as tools (docs/try-best.md): `handoff_codex` runs Codex CLI, `handoff_claude_code`
 * runs Claude Code CLI, each with its skill's flags (sandbox-safe unless `tryBest.handoffMode`
 * is `isolated`). A skill is offered only when its command resolves on PATH. The task goes to the
 * harness as one quoted argument (secrets of this process redacted), never through the shell unquoted, and the harness runs with the
 * scrubbed tool environment, in its own process group, killed at the timeout.
 */
import { availableSkills, redactSecrets, skillCommandLine, type HandoffSkill, type SkillMode } from "@loopguard/core/try-best"
import type { ToolDefinition, ToolResult } from "@loopguard/effect"
import { DEFAULT_ENV_DENY, runShell, scrubEnv } from "@loopguard/effect/tools"
import { commandOnPath, type CommandLookup } from "../pause/path-lookup.js"
import type { ApproveCommand } from "./approve.js"

export interface SkillToolOptions {
  readonly mode: SkillMode
  readonly timeoutMs: number
  readonly maxOutputChars: number
  readonly env: Readonly<Record<string, string | undefined>>
  readonly envDeny?: ReadonlyArray<string>
  readonly envAllow?: ReadonlyArray<string>
  readonly envPass?: ReadonlyArray<string>
  readonly secretEnvNames?: ReadonlyArray<string>
  /** Default: the PATH of `env`. */
  readonly hasCommand?: CommandLookup
  /** With `tools.approveCommands`: asked with the harness command line before each run. */
  readonly approve?: ApproveCommand
}

const skillTool = (skill: HandoffSkill, cwd: string, o: SkillToolOptions, env: Record<string, string>): ToolDefinition => ({
  spec: {
    name: skill.toolName,
    description: `${skill.description}\n\nPlaybook (the built-in \`${skill.name}\` skill):\n${skill.playbook}`,
    inputSchema: {
      type: "object",
      properties: { task: { type: "string", description: "The whole task: goal, workspace state, failed approach, validation requirements. No credentials." } },
      required: ["task"]
    }
  },
  stopsAtTimeout: true,
  ...(o.approve !== undefined
    ? { authorize: async (input: Record<string, unknown>) => o.approve!(skillCommandLine(skill, typeof input["task"] === "string" ? input["task"] : "", o.mode)) }
    : {}),
  run: async (input, signal, context): Promise<ToolResult> => {
    // The task leaves loopguard for another program: secrets of this process are taken out first.
    const task = typeof input["task"] === "string" ? redactSecrets(input["task"].trim(), o.env) : ""
    if (task === "") return { state: "error", output: "", error: "no task given: pass the whole task as `task` (a string)" }
    const r = await runShell(skillCommandLine(skill, task, o.mode), { cwd, timeoutMs: o.timeoutMs, signal, env, maxOutputChars: o.maxOutputChars, ...(context !== undefined ? { redact: context.redact } : {}) })
    return r.failure === undefined ? { state: "completed", output: r.output, exitCode: r.exitCode ?? 0 } : { state: "error", output: r.output, error: r.failure }
  }
})

/** One tool per installed harness skill; none when neither command resolves. */
export const handoffSkillTools = (cwd: string, o: SkillToolOptions): ReadonlyArray<ToolDefinition> => {
  const env = scrubEnv(o.env, { secretNames: o.secretEnvNames ?? [], deny: o.envDeny ?? DEFAULT_ENV_DENY, allow: o.envAllow ?? [], pass: o.envPass ?? [] })
  return availableSkills(o.hasCommand ?? commandOnPath(o.env)).map((skill) => skillTool(skill, cwd, o, env))
}
