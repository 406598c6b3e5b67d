/** `faultline diagnose EVENT_ID`: the service's diagnostic procedure for one stored event (CONTRACT section 8). */
import { Args, Command, Options } from "@effect/cli"
import { Effect, Layer } from "effect"
import { diagnose, formatDiagnosis } from "../ticket/diagnosis.js"
import { Database } from "../store/Database.js"
import { runtimeError } from "./CliError.js"
import { explainStored } from "../sources/pipeline.js"
import { explanationLines } from "./table.js"
import { choiceOption, configOption, loadConfigOrFail, withDatabase } from "./common.js"

const eventId = Args.text({ name: "EVENT_ID" }).pipe(Args.withDescription("The id of a stored event (evt_...)"))
const format = choiceOption("format", ["text", "json"]).pipe(Options.withDefault("text" as const))
const explain = Options.boolean("explain").pipe(
  Options.withDescription("Also say what set each field and what decided the category (read again from the stored sample)")
)

export const diagnoseCommand = Command.make("diagnose", { eventId, config: configOption, format, explain }, (o) =>
  Effect.gen(function* () {
    const config = yield* loadConfigOrFail(o.config)
    const diagnosed = yield* withDatabase(config, true, (db) =>
      diagnose(o.eventId).pipe(
        Effect.provide(Layer.succeed(Database, { db, file: config.database.path })),
        Effect.mapError((e) => runtimeError(e.message))
      )
    )
    const why = o.explain ? explainStored(diagnosed.event) : null
    if (o.format === "json") process.stdout.write(JSON.stringify(why === null ? diagnosed : { ...diagnosed, explain: why }, null, 2) + "\n")
    else {
      const text = formatDiagnosis(diagnosed)
      process.stdout.write(why === null ? text : `${text}\n5. Why this classification (read again from the stored sample)\n${explanationLines(why).join("\n")}\n`)
    }
  })
).pipe(Command.withDescription("Run the diagnostic procedure for one stored event: status, code, message, curl reproduction, other models, proxy hint"))
