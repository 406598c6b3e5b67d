/** The command tree of CONTRACT section 2. Each command lives in its own file. */
import { Command } from "@effect/cli"
import { classifyCommand } from "./classify.js"
import { serveCommand } from "./serve.js"
import { replayCommand } from "./replay.js"
import { reportCommand } from "./report.js"
import { diagnoseCommand } from "./diagnose.js"
import { version } from "./version.js"

export const rootCommand = Command.make("faultline").pipe(
  Command.withDescription("Triage failed calls to an OpenAI-style LLM API: tail logs, classify, alert, escalate."),
  Command.withSubcommands([serveCommand, classifyCommand, replayCommand, reportCommand, diagnoseCommand])
)

export const cli = Command.run(rootCommand, { name: "faultline", version })
