/** `faultline serve`: the daemon. Configuration errors exit 2 before anything starts. */
import { Command } from "@effect/cli"
import { Cause, Effect, Layer } from "effect"
import { AppLive } from "../App.js"
import { isLoopbackHost } from "../config/Config.js"
import { runtimeError, usageError } from "./CliError.js"
import { configOption, loadConfigOrFail } from "./common.js"

export const serveCommand = Command.make("serve", { config: configOption }, (o) =>
  Effect.gen(function* () {
    const config = yield* loadConfigOrFail(o.config)
    if (!isLoopbackHost(config.http.host) && config.http.apiToken === null) {
      return yield* usageError(
        `http.apiToken: required when http.host is not loopback (${config.http.host}); set it in the config or FAULTLINE_API_TOKEN`
      )
    }
    yield* Layer.launch(AppLive(config, { cwd: process.cwd() })).pipe(
      Effect.catchAllCause((cause) => {
        if (Cause.isInterruptedOnly(cause)) return Effect.interrupt
        const e = Cause.squash(cause) as { _tag?: string; message?: string; reason?: string; cause?: { message?: string } }
        if (e?._tag === "ConfigError") return Effect.fail(usageError(e.message ?? String(e)))
        const detail = e?._tag === "ServeError" ? `cannot listen on ${config.http.host}:${config.http.port}: ${e.cause?.message ?? e.message}` : (e?.message ?? String(e))
        return Effect.fail(runtimeError(detail))
      })
    )
  })
).pipe(Command.withDescription("Run the daemon: tail logs, receive webhooks, classify, store, alert, open tickets, serve HTTP"))
