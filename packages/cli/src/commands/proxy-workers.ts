/**
 * `loopguard proxy --workers N`: N processes serve the proxy's one address, each listening with
 * SO_REUSEPORT so the kernel spreads the agents' connections among them and the proxy uses more
 * than one core. This process supervises them: it starts each as the same command line (the
 * first on the port asked for, the rest on the port the first was given), passes each hold on an
 * upstream (Retry-After) from the worker told to the others, so the backoff stays fleet-wide, and
 * stops them all when it ends. A worker that ends on its own ends the others and the supervisor.
 * A worker whose supervisor is gone (its IPC channel closed) stops too: none outlives the run.
 *
 * Verdicts need nothing shared (each is a function of the request and the config); sessions go to
 * the store each worker opens, as replicas' do.
 */
import { MAX_PROXY_WORKERS } from "@loopguard/effect/config"
import { toldBackoff, type BackoffBoard } from "@loopguard/proxy"
import { spawn, type ChildProcess } from "node:child_process"
import { Deferred, Effect, type Scope } from "effect"
import { RunFailed } from "../errors.js"

/** Set in a worker's environment by its supervisor: `INDEX:PORT`. Internal to the two, not a setting (so not named LOOPGUARD_…, the settings' prefix). */
export const WORKER_ENV = "LG_PROXY_WORKER"

/** What a worker and its supervisor tell each other over the IPC channel. */
export type WorkerMessage =
  | { readonly type: "ready"; readonly port: number }
  | { readonly type: "hold"; readonly upstream: string; readonly untilMs: number }

export const isWorkerMessage = (m: unknown): m is WorkerMessage => {
  if (typeof m !== "object" || m === null) return false
  const o = m as Record<string, unknown>
  if (o["type"] === "ready") return typeof o["port"] === "number"
  return o["type"] === "hold" && typeof o["upstream"] === "string" && typeof o["untilMs"] === "number"
}

export interface WorkerRole {
  /** 1 to N, for log lines. */
  readonly index: number
  /** The port to listen on, shared with the other workers (0 for the first when the address asks for any). */
  readonly port: number
}

/** This process as a worker of a supervisor, or null when it is not one (no IPC channel, or no role set). */
export const workerRole = (env: NodeJS.ProcessEnv = process.env, hasChannel = process.send !== undefined): WorkerRole | null => {
  const m = /^(\d{1,2}):(\d{1,5})$/.exec(env[WORKER_ENV] ?? "")
  return m === null || !hasChannel ? null : { index: Number(m[1]), port: Number(m[2]) }
}

/** Why this runtime cannot share one port among processes, or null when it can. */
export const reusePortProblem = (platform: string = process.platform, versions: NodeJS.ProcessVersions = process.versions): string | null => {
  if (platform !== "linux") return `more than one worker needs Linux, where SO_REUSEPORT spreads connections among processes (this is ${platform})`
  if ((versions as { bun?: string }).bun !== undefined) return null
  const [major = 0, minor = 0] = versions.node.split(".").map(Number)
  return major > 22 || (major === 22 && minor >= 12) ? null : `more than one worker needs Node 22.12 or later, whose servers can share a port (this is Node ${versions.node})`
}

/**
 * How many processes serve the address: the number asked for, or for "auto" one per core this
 * process may run on (`cores`), at most 64, and 1 where processes cannot share a port (`problem`):
 * "auto" asks for what the machine can do, so it is never refused.
 */
export const workerCount = (setting: number | "auto", cores: number, problem: string | null): number =>
  setting !== "auto" ? setting : problem !== null ? 1 : Math.min(MAX_PROXY_WORKERS, Math.max(1, Math.floor(cores)))

/** `--workers` as typed: a number is read as one; anything else goes to the config's check as written, which names it. */
export const workersFlagValue = (text: string): number | string => (/^-?\d{1,6}(\.\d+)?$/.test(text.trim()) ? Number(text.trim()) : text)

/**
 * A worker's backoff board without a shared store: its holds go to the supervisor, which passes
 * them to the other workers; theirs arrive here.
 */
export const workerBoard = (): BackoffBoard => {
  const board = toldBackoff((upstream, untilMs) => {
    if (process.connected) process.send?.({ type: "hold", upstream, untilMs } satisfies WorkerMessage)
  })
  process.on("message", (m: unknown) => {
    if (isWorkerMessage(m) && m.type === "hold") board.heard(m.upstream, m.untilMs)
  })
  return board
}

/** Tells the supervisor this worker listens on `port`; the worker stops (as on SIGTERM) once its supervisor is gone. */
export const announceWorker = (port: number): void => {
  process.send?.({ type: "ready", port } satisfies WorkerMessage)
  process.once("disconnect", () => process.kill(process.pid, "SIGTERM"))
}

/** How a child ended, in words. */
const endOf = (code: number | null, signal: NodeJS.Signals | null): string => (signal !== null ? `by ${signal}` : `with status ${code ?? "?"}`)

/** A worker ended by a signal (the user's Ctrl-C reaches the whole process group): the supervisor ends quietly with its status. */
const signalStatus = (code: number | null, signal: NodeJS.Signals | null): number | null =>
  signal === "SIGINT" || code === 130 ? 130 : signal === "SIGTERM" || code === 143 ? 143 : null

/** Ends a worker: SIGTERM by its pid, then SIGKILL if it has not ended within `graceMs`. */
const stopWorker = (child: ChildProcess, graceMs = 5_000): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs)
    child.once("exit", () => {
      clearTimeout(timer)
      resolve()
    })
    child.kill("SIGTERM")
  })

interface Workers {
  readonly children: Array<ChildProcess>
  /** Completed with how the run ends once any worker ends on its own. */
  readonly ended: Deferred.Deferred<never, RunFailed>
}

/** Passes a worker's hold to every other worker. */
const relayHold = (workers: Workers, from: ChildProcess, m: WorkerMessage): void => {
  for (const other of workers.children) if (other !== from && other.connected) other.send(m)
}

/** Starts worker `index` on `port`; succeeds with the port it listens on, once it says so. Stopped with the scope. */
const startWorker = (workers: Workers, index: number, port: number): Effect.Effect<number, RunFailed, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.callback<{ readonly child: ChildProcess; readonly port: number }, RunFailed>((resume) => {
      const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
        stdio: ["ignore", "inherit", "inherit", "ipc"],
        env: { ...process.env, [WORKER_ENV]: `${index}:${port}` }
      })
      workers.children.push(child)
      let ready = false
      child.on("message", (m: unknown) => {
        if (!isWorkerMessage(m)) return
        if (m.type === "hold") return relayHold(workers, child, m)
        ready = true
        resume(Effect.succeed({ child, port: m.port }))
      })
      child.once("error", (e) => resume(Effect.fail(new RunFailed({ message: `could not start proxy worker ${index}: ${e.message}`, exitCode: 1 }))))
      child.once("exit", (code, signal) => {
        const quiet = signalStatus(code, signal)
        // A worker that ended with a status before it listened has said why on the shared stderr (a taken port, a store it could not open).
        const said = quiet !== null || (!ready && signal === null)
        const failure = said
          ? new RunFailed({ message: "", exitCode: quiet ?? (code === 2 ? 2 : 1) })
          : new RunFailed({ message: `proxy worker ${index} (pid ${child.pid}) ended ${endOf(code, signal)}${ready ? "" : " before it listened"}; the other workers were stopped`, exitCode: 1 })
        if (!ready) resume(Effect.fail(failure))
        Deferred.doneUnsafe(workers.ended, Effect.fail(failure))
      })
      return Effect.promise(() => stopWorker(child))
    }),
    ({ child }) => Effect.promise(() => stopWorker(child))
  ).pipe(Effect.map(({ port }) => port))

/**
 * Starts `count` workers on `port` (the first alone, so that a port of 0 becomes one they all
 * share), calls `listening` with the port, and runs until one of them ends or the scope closes.
 */
export const superviseWorkers = (count: number, port: number, listening: (port: number) => void): Effect.Effect<never, RunFailed, Scope.Scope> =>
  Effect.gen(function* () {
    const workers: Workers = { children: [], ended: yield* Deferred.make<never, RunFailed>() }
    const shared = yield* startWorker(workers, 1, port)
    yield* Effect.forEach(Array.from({ length: count - 1 }, (_, i) => i + 2), (index) => startWorker(workers, index, shared), { concurrency: "unbounded", discard: true })
    listening(shared)
    return yield* Deferred.await(workers.ended)
  }).pipe(Effect.withSpan("ProxyWorkers.supervise"))
