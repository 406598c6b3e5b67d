/** What several commands share: `--config`, loading it, opening the database for one-shot commands. */
import { HelpDoc, Options, ValidationError } from "@effect/cli"
import { Effect, Either, Option } from "effect"
import type BetterSqlite3 from "better-sqlite3"
import * as fs from "node:fs"
import { classifyRulesOf, loadConfig, type Config } from "../config/Config.js"
import { setClassifyRules } from "../classify/rules.js"
import { DatabaseError, openDatabase } from "../store/Database.js"
import { runtimeError, usageError, type CliError } from "./CliError.js"

export const configOption = Options.text("config").pipe(
  Options.withDescription("JSON config file (default: FAULTLINE_CONFIG, else the embedded defaults)"),
  Options.optional
)

/** Load the config and put its `classify.rules` in force for this process (every command classifies). */
export const loadConfigOrFail = (file: Option.Option<string>): Effect.Effect<Config, CliError> =>
  Effect.suspend(() => {
    const r = loadConfig(Option.getOrUndefined(file))
    if (Either.isLeft(r)) return Effect.fail(usageError(r.left.message))
    setClassifyRules(classifyRulesOf(r.right))
    return Effect.succeed(r.right)
  })

/** Open the configured database for a one-shot command; `mustExist` for read-only commands. */
export const withDatabase = <A, E>(
  config: Config,
  mustExist: boolean,
  use: (db: BetterSqlite3.Database) => Effect.Effect<A, E>
): Effect.Effect<A, E | CliError> =>
  Effect.acquireUseRelease(
    Effect.suspend(() => {
      const file = config.database.path
      if (mustExist && !fs.existsSync(file)) {
        return Effect.fail(runtimeError(`no database at ${file} (database.path): start faultline serve or run faultline replay first`))
      }
      return Effect.try({
        try: () => openDatabase(file),
        catch: (e) => runtimeError(e instanceof DatabaseError ? e.message : `cannot open database ${file}: ${String(e)}`)
      })
    }),
    use,
    (db) => Effect.sync(() => db.close())
  )

/**
 * A flag with a closed set of values whose error names the flag and the value
 * (`--format: expected jsonl | table, got "xml"`), unlike @effect/cli's `choice`.
 */
export const choiceOption = <const A extends string>(name: string, values: ReadonlyArray<A>) =>
  Options.text(name).pipe(
    Options.mapEffect((v) =>
      (values as ReadonlyArray<string>).includes(v)
        ? Effect.succeed(v as A)
        : Effect.fail(ValidationError.invalidValue(HelpDoc.p(`--${name}: expected ${values.join(" | ")}, got ${JSON.stringify(v)}`)))
    ),
    Options.withDescription(`One of: ${values.join(", ")}`)
  )
