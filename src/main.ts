#!/usr/bin/env node
/** Runs the CLI. Exit codes (CONTRACT section 2): 0 success, 2 usage or configuration, 1 anything else. */
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
