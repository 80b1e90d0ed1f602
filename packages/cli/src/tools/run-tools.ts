/**
 * The tool set of `loopguard run` as the config asks for it: output cap, the shell's
 * environment rules (the key's variable always removed) and, with `tools.approveCommands`,
 * approval on the terminal.
 */
import type { LoopguardConfig, ToolDefinition } from "@loopguard/effect"
import { askOnTerminal } from "../pause/pause-prompt.js"
import { builtinTools } from "../tools.js"
import { terminalApproval } from "./approve.js"
import { handoffSkillTools } from "./skill-tools.js"

export const runTools = (cwd: string, config: LoopguardConfig, apiKeyEnv: string): ReadonlyArray<ToolDefinition> => {
  const approval = config.tools.approveCommands
    ? { approve: terminalApproval(process.stdin.isTTY === true && process.stderr.isTTY === true, askOnTerminal) }
    : {}
  return [
  ...builtinTools(cwd, config.loop.toolTimeoutMs, {
    maxOutputChars: config.tools.maxOutputChars,
    envDeny: config.tools.envDeny,
    envAllow: config.tools.envAllow,
    envPass: config.tools.envPass,
    secretEnvNames: [apiKeyEnv],
    ...approval
  }),
  // The hand-off skills belong to Try-Best: offered when it is on and the harness is installed.
  ...(config.tryBest.enabled
    ? handoffSkillTools(cwd, {
        mode: config.tryBest.handoffMode,
        timeoutMs: config.tryBest.handoffTimeoutMs,
        maxOutputChars: config.tools.maxOutputChars,
        env: process.env,
        envDeny: config.tools.envDeny,
        envAllow: config.tools.envAllow,
        envPass: config.tools.envPass,
        secretEnvNames: [apiKeyEnv],
        ...approval
      })
    : [])
  ]
}
