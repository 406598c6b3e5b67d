#!/usr/bin/env -S node --max-semi-space-size=4
/**
 * Runs the CLI. Exit codes (CONTRACT section 2): 0 success, 2 usage or configuration, 1 anything else.
 *
 * The V8 flag above (read only on the command line): a young generation of 4 MB semi-spaces
 * instead of 16. In a failure storm it keeps the daemon's peak ~21 MB lower for ~0.6 s more
 * garbage collection on 19 s of CPU (bench storm). `npm start`, the image and the benches start
 * the daemon through this line; `node dist/src/main.js` works the same, with V8's default sizes.
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
