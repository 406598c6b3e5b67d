/** File I/O as Effects, failing with one error type that names the operation, path and code. */
import { Data, Effect } from "effect"

export class TailIoError extends Data.TaggedError("TailIoError")<{
  readonly op: string
  readonly path: string
  readonly code: string
  readonly message: string
}> {}

export const io = <A>(op: string, file: string, f: () => Promise<A>): Effect.Effect<A, TailIoError> =>
  Effect.tryPromise({
    try: f,
    catch: (e) => {
      const err = e as NodeJS.ErrnoException
      return new TailIoError({ op, path: file, code: err?.code ?? "EUNKNOWN", message: err?.message ?? String(e) })
    }
  })

/**
 * A read of a local file that is already in the page cache takes microseconds: done
 * synchronously, it saves a round trip through libuv's thread pool per chunk, which left the
 * reading fiber idle about a fifth of the time on a backlog.
 */
export const ioSync = <A>(op: string, file: string, f: () => A): Effect.Effect<A, TailIoError> =>
  Effect.try({
    try: f,
    catch: (e) => {
      const err = e as NodeJS.ErrnoException
      return new TailIoError({ op, path: file, code: err?.code ?? "EUNKNOWN", message: err?.message ?? String(e) })
    }
  })
