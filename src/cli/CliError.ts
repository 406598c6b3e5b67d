import { Data } from "effect"

/** A failure the CLI reports as one line on stderr, with the exit code of CONTRACT section 2. */
export class CliError extends Data.TaggedError("CliError")<{
  /** 2: usage or configuration error; 1: anything else. */
  readonly exitCode: 1 | 2
  readonly message: string
}> {}

export const usageError = (message: string) => new CliError({ exitCode: 2, message })
export const runtimeError = (message: string) => new CliError({ exitCode: 1, message })
