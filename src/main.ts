#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-semi-space-size=2
/**
 * Runs the CLI. Exit codes (CONTRACT section 2): 0 success, 2 usage or configuration, 1 anything else.
 *
 * The line above sets what can only be set before the process starts:
 * - a young generation of 2 MB semi-spaces instead of 16. In a failure storm it keeps the
 *   daemon's peak RSS ~30 MB lower (4 MB semi-spaces: ~20 MB) for no CPU time the storm bench
 *   can tell apart from its noise;
 * - at most two glibc malloc arenas instead of eight per core: the daemon's dozen threads
 *   (V8's, libuv's, the scan worker's, SQLite's calls) each took an arena of their own and kept
 *   its free memory; ~8 MB less at the storm's peak.
 * `npm start`, the image and the benches start the daemon through this line; `node
 * dist/src/main.js` works the same, with V8's and glibc's defaults.
 */
import "./heap.js"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { ValidationError } from "@effect/cli"
import { Cause, Effect } from "effect"
import { cli } from "./cli/cli.js"
import { CliError } from "./cli/CliError.js"

const verbose = process.argv.includes("--verbose")
const argv = process.argv.filter((a) => a !== "--verbose")

const program = cli(argv).pipe(
  Effect.catchAllCause((cause) =>
    Effect.sync(() => {
      const failure = Cause.failureOption(cause)
      if (failure._tag === "Some" && ValidationError.isValidationError(failure.value)) {
        // @effect/cli already printed the reason and usage
        process.exitCode = 2
        return
      }
      if (failure._tag === "Some" && failure.value instanceof CliError) {
        process.stderr.write(`faultline: ${failure.value.message}\n`)
        process.exitCode = failure.value.exitCode
        return
      }
      if (Cause.isInterruptedOnly(cause)) return
      const err = Cause.squash(cause)
      process.stderr.write(`faultline: ${err instanceof Error ? err.message : String(err)}\n`)
      if (verbose) process.stderr.write(Cause.pretty(cause) + "\n")
      process.exitCode = 1
    })
  ),
  Effect.provide(NodeContext.layer)
)

NodeRuntime.runMain(program, { disableErrorReporting: true, disablePrettyLogger: true })
