/**
 * The file tailer: finds the files of `tail[]` (chokidar on each glob's base folder plus a
 * periodic rescan), follows each one by identity (`dev:ino` + a hash of its first bytes,
 * never by path), reads it through the shared reader -> assembler -> pipeline, and hands
 * batches of events with their read position to `sink` (the store commits both in one
 * transaction: exactly once across `kill -9`, rotation by rename and truncation).
 *
 * One fiber does all reading and committing, one step at a time under a mutex (`drain()`
 * takes the same mutex), so the state below needs no further locking. Watchers only mark
 * paths or files as dirty and wake that fiber through a sliding queue of one signal:
 * - chokidar (add/change/unlink in the base folders) marks paths to reconcile;
 * - `fs.watch` on every open file marks the file (chokidar drops change events in bursts);
 * - a `Schedule` poll marks every tracked path and file, a slower one rescans the folders;
 * - after a read that found data, the file is checked once more shortly afterwards.
 * A step reads at most one batch per dirty file and awaits `sink` before reading on:
 * a burst slows the tailer down, it does not grow memory.
 */
import { watch as chokidarWatch } from "chokidar"
import { Cause, Clock, Duration, Effect, Queue, Runtime, Schedule, type Scope } from "effect"
import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import type { FileHandle } from "node:fs/promises"
import * as path from "node:path"
import type { TailSpec } from "../../config/Config.js"
import type { IngestBatch, SourceCheckpoint } from "../Batch.js"
import { checkHead, fileKey, type Head } from "./fileIdentity.js"
import type { Position, RecordReaderOptions } from "./FileReader.js"
import { io, ioSync, TailIoError } from "./io.js"
import { LocalReader, RemoteReader, ScanWorker, builtScanWorker, type TailReader } from "./readers.js"
import { compileGlob, type CompiledGlob } from "./glob.js"
import { discover, MAX_DEPTH, MAX_ENTRIES } from "./discover.js"

export interface TailerDeps {
  readonly specs: ReadonlyArray<TailSpec>
  readonly cwd: string
  readonly sink: (batch: IngestBatch) => Effect.Effect<void>
  readonly loadCheckpoint: (key: string) => SourceCheckpoint | null
  readonly allCheckpoints: () => ReadonlyArray<SourceCheckpoint>
  /** true when the database has never tailed anything: only then startAt applies to files already present */
  readonly firstStart: boolean
  /** Flush a pending record after this long without new data (default 250). */
  readonly idleFlushMs?: number
  /** Lines per batch handed to `sink` (default 5000). */
  readonly maxBatchLines?: number
  /** Safety poll of every open file, in case a watcher event was dropped (default 500). */
  readonly pollIntervalMs?: number
  /** Rescan of the glob folders for files no watcher reported (default 2000). */
  readonly rescanIntervalMs?: number
  /** A file no longer at a tailed path (rotated away, deleted) is let go after this long without new data (default 5000). */
  readonly rotateWaitMs?: number
  /**
   * The scan worker's script (scanWorker.js), or null to scan on this thread. Default: the
   * compiled script next to this module; null when the sources run unbuilt (under vitest).
   * The results are the same either way.
   */
  readonly scanWorkerFile?: string | null
}

export interface TailedFileStats {
  readonly source: string
  readonly path: string
  /** Committed read position. */
  readonly offset: number
  readonly size: number
}

export interface TailerHandle {
  /** One row per tracked file, for lag metrics (`size - offset`). */
  stats(): Array<TailedFileStats>
  /** Read every tracked file to its end, flush pending records, commit. */
  drain(): Effect.Effect<void>
}

export { TailIoError } from "./io.js"

const CHUNK = 64 * 1024
const RECHECK_MS = 50
const RETRY_MS = 1000
/** The first batch of a backlog (see Tracked.batchLines). */
const FIRST_BATCH_LINES = 2048

interface Tracked {
  readonly key: string
  /** Last path the file was seen at (its checkpoint's `path`). */
  path: string
  readonly spec: TailSpec
  readonly fh: FileHandle
  watcher: fs.FSWatcher | null
  readonly reader: TailReader
  head: Head
  size: number
  committed: Position
  lastDataAt: number
  /** Since when no tailed path holds this file (rotated away or deleted). */
  orphanSince: number | null
  recheckAt: number | null
  retryAt: number
  /** Lines to read into the next batch: small at the start of a backlog, doubling up to maxBatchLines. */
  batchLines: number
}

/** Offset after the last newline of the first `size` bytes, and the number of the line there. */
const endPosition = (fh: FileHandle, file: string, size: number) =>
  Effect.gen(function* () {
    const buf = Buffer.allocUnsafe(1024 * 1024)
    let pos = 0
    let lines = 0
    let lastNl = -1
    while (pos < size) {
      const { bytesRead } = yield* io("read", file, () => fh.read(buf, 0, Math.min(buf.length, size - pos), pos))
      if (bytesRead === 0) break
      let i = buf.indexOf(10, 0)
      while (i !== -1 && i < bytesRead) {
        lines++
        lastNl = pos + i
        i = buf.indexOf(10, i + 1)
      }
      pos += bytesRead
    }
    return { offset: lastNl + 1, line: lines + 1 } satisfies Position
  })

export const runTailer = (deps: TailerDeps): Effect.Effect<TailerHandle, never, Scope.Scope> =>
  Effect.gen(function* () {
    const idleFlushMs = deps.idleFlushMs ?? 250
    const maxBatchLines = Math.max(1, deps.maxBatchLines ?? 5000)
    const pollMs = deps.pollIntervalMs ?? 500
    const rescanMs = deps.rescanIntervalMs ?? 2000
    const rotateWaitMs = deps.rotateWaitMs ?? 5000

    const globs: Array<{ readonly spec: TailSpec; readonly glob: CompiledGlob }> = deps.specs.map((spec) => ({
      spec,
      glob: compileGlob(spec.path, deps.cwd)
    }))
    const specFor = (p: string): TailSpec | null => globs.find((g) => g.glob.matches(p))?.spec ?? null

    /** Tracked files by identity. */
    const files = new Map<string, Tracked>()
    /** Which file a tailed path held when last looked at. */
    const pathIndex = new Map<string, string>()
    /** Work marked by watchers and schedules, consumed by the reading fiber. */
    const pendingPaths = new Set<string>()
    const pendingKeys = new Set<string>()
    /** Problems already logged, so a file we cannot read does not log every poll. */
    const warned = new Set<string>()

    const signal = yield* Queue.sliding<void>(1)
    const wake = (): void => {
      Queue.unsafeOffer(signal, undefined)
    }
    const mutex = yield* Effect.makeSemaphore(1)
    const runFork = Runtime.runFork(yield* Effect.runtime<never>())
    const workerFile = deps.scanWorkerFile === undefined ? builtScanWorker() : deps.scanWorkerFile
    const scanWorker = workerFile === null ? null : new ScanWorker(workerFile)
    if (scanWorker !== null) {
      yield* Effect.addFinalizer(() => scanWorker.terminate())
      // a backlog found at start-up (or the first file that appears) is read at once
      if (deps.specs.length > 0) scanWorker.start()
    }
    const readerFor = (fh: FileHandle, p: string, opts: RecordReaderOptions, start: Position): TailReader =>
      scanWorker === null ? new LocalReader(fh.fd, p, opts, start) : new RemoteReader(scanWorker, fh.fd, p, opts, start)

    const warnOnce = (id: string, message: string, extra: Record<string, unknown>) =>
      Effect.suspend(() => {
        if (warned.has(id)) return Effect.void
        // bounded: a tree that keeps making new unreadable paths says so again after a while
        if (warned.size >= 10_000) warned.clear()
        warned.add(id)
        return Effect.logWarning(message, extra)
      })

    const ioWarning = (e: TailIoError) =>
      warnOnce(`${e.op}:${e.path}:${e.code}`, `tail: cannot ${e.op} ${e.path}: ${e.code}`, { path: e.path, code: e.code })

    // ---- committing -----------------------------------------------------------------------

    const checkpointOf = (f: Tracked, at: Position): SourceCheckpoint => ({
      key: f.key,
      path: f.path,
      offset: at.offset,
      line: at.line,
      size: f.size,
      headHash: f.head.hash,
      headLength: f.head.length
    })

    /**
     * Hand what was read to the sink with the position to resume from. `resetTo` commits
     * another position (0 after a truncation) instead of the reader's.
     */
    const commit = (f: Tracked, opts?: { readonly resetTo?: Position; readonly force?: boolean }) =>
      Effect.suspend(() => {
        const pos = f.reader.position()
        const next = opts?.resetTo ?? pos
        const batch = f.reader.takeBatch()
        const linesRead = Math.max(0, pos.line - f.committed.line)
        const moved = next.offset !== f.committed.offset || next.line !== f.committed.line
        if (batch.events.length === 0 && batch.ignored === 0 && linesRead === 0 && !moved && opts?.force !== true && opts?.resetTo === undefined) {
          return Effect.void
        }
        return deps
          .sink({ source: f.reader.source, events: batch.events, linesRead, ignored: batch.ignored, checkpoint: checkpointOf(f, next), calls: batch.calls })
          .pipe(Effect.tap(() => Effect.sync(() => (f.committed = next))))
      })

    /** After a failure: forget what was read and not committed, try again later from the commit. */
    const rewind = (f: Tracked, now: number): void => {
      f.reader.restart(f.committed)
      f.retryAt = now + RETRY_MS
    }

    const guardFile = <A>(f: Tracked, now: number, fallback: A, effect: Effect.Effect<A, TailIoError>): Effect.Effect<A> =>
      effect.pipe(
        Effect.catchAllCause((cause) => {
          if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
          rewind(f, now)
          const failure = Cause.failureOption(cause)
          return (failure._tag === "Some"
            ? ioWarning(failure.value)
            : Effect.logWarning(`tail: reading ${f.path} failed; retrying from the last commit`, cause)
          ).pipe(Effect.as(fallback))
        })
      )

    // ---- reading ----------------------------------------------------------------------------

    /** Check for truncation, then read one batch and commit it. True when more may remain. */
    const readCycle = (f: Tracked, now: number) =>
      Effect.gen(function* () {
        // synchronous, like the reads: two round trips through libuv's thread pool per batch
        // left this fiber idle for milliseconds each on a busy machine
        const st = yield* ioSync("stat", f.path, () => fs.fstatSync(f.fh.fd))
        f.size = st.size
        const { matches, head } = yield* ioSync("read", f.path, () => checkHead(f.fh.fd, f.head))
        if (!matches || st.size < f.reader.readOffset) {
          // copytruncate (or the same inode rewritten): finish what was read, start again at 0
          yield* Effect.logInfo(`tail: ${f.path} was truncated; reading it again from the start`)
          yield* f.reader.flush(now)
          f.head = head
          const start: Position = { offset: 0, line: 1 }
          yield* commit(f, { resetTo: start })
          f.reader.restart(start)
        } else {
          f.head = head
        }
        const { more, gotData } = yield* f.reader.read(Math.min(f.batchLines, maxBatchLines), now)
        // a backlog starts with a small batch, so that its first failures are stored (and the
        // scan worker and this thread both busy) within milliseconds; then batches grow
        f.batchLines = more ? Math.min(f.batchLines * 2, maxBatchLines) : FIRST_BATCH_LINES
        if (gotData || more) {
          f.lastDataAt = now
          f.recheckAt = now + RECHECK_MS
        }
        yield* commit(f)
        return more
      })

    const readToEnd = (f: Tracked, now: number) =>
      Effect.gen(function* () {
        while (yield* readCycle(f, now)) {
          /* next batch */
        }
      })

    const closeFile = (f: Tracked): Effect.Effect<void> =>
      Effect.suspend(() => {
        f.watcher?.close()
        f.watcher = null
        // the scan worker lets go of the descriptor before it is closed (and its number reused)
        return f.reader.close().pipe(Effect.zipRight(Effect.promise(() => f.fh.close().catch(() => undefined))))
      })

    /** Let go of a file no tailed path holds any more: read the rest, the last line too. */
    const release = (f: Tracked, now: number) =>
      Effect.gen(function* () {
        yield* readToEnd(f, now)
        yield* f.reader.finish(now)
        yield* commit(f)
        files.delete(f.key)
        if (pathIndex.get(f.path) === f.key) pathIndex.delete(f.path)
        yield* closeFile(f)
        yield* Effect.logDebug(`tail: let go of ${f.path} (${f.key})`)
      })

    const watchFile = (f: Tracked): void => {
      try {
        const w = fs.watch(f.path, { persistent: false }, (event) => {
          pendingKeys.add(f.key)
          if (event === "rename" && f.orphanSince === null) pendingPaths.add(f.path)
          wake()
        })
        w.on("error", () => {
          w.close()
          if (f.watcher === w) f.watcher = null
        })
        f.watcher = w
      } catch {
        // the safety poll still covers this file
        f.watcher = null
      }
    }

    type StartMode = "initial" | "new" | "recovered"

    /** Open a file and decide where reading starts. Null when it is not a file to read. */
    const open = (p: string, spec: TailSpec, mode: StartMode, now: number, source?: string) =>
      Effect.gen(function* () {
        const fh = yield* io("open", p, () => fsp.open(p, "r"))
        const opened = yield* Effect.gen(function* () {
          const st = yield* io("stat", p, () => fh.stat({ bigint: true }))
          if (!st.isFile()) return null
          const key = fileKey(st)
          if (files.has(key)) return { known: files.get(key)! }
          const size = Number(st.size)
          const ckpt = deps.loadCheckpoint(key)
          let start: Position = { offset: 0, line: 1 }
          if (ckpt !== null) {
            const { matches } = yield* ioSync("read", p, () => checkHead(fh.fd, { hash: ckpt.headHash, length: ckpt.headLength }))
            if (matches && size >= ckpt.offset) {
              start = { offset: ckpt.offset, line: ckpt.line }
            } else if (mode === "recovered") {
              return null // the inode now holds another file, which no glob asked for
            } else {
              yield* Effect.logInfo(`tail: ${p} is not the file last read as ${key} (replaced or truncated); reading it from the start`)
            }
          } else if (mode === "recovered") {
            return null
          } else if (mode === "initial" && deps.firstStart && spec.startAt === "end") {
            start = yield* endPosition(fh, p, size)
          }
          const { head } = yield* ioSync("read", p, () => checkHead(fh.fd, null))
          const f: Tracked = {
            key,
            path: p,
            spec,
            fh,
            watcher: null,
            reader: readerFor(fh, p, { key, source: source ?? `file:${p}`, service: spec.service, chunkSize: CHUNK }, start),
            head,
            size,
            committed: start,
            lastDataAt: now,
            orphanSince: mode === "recovered" ? now : null,
            recheckAt: null,
            retryAt: 0,
            batchLines: FIRST_BATCH_LINES
          }
          const force = ckpt === null || ckpt.offset !== start.offset || ckpt.line !== start.line
          return { tracked: f, force }
        }).pipe(Effect.onError(() => Effect.promise(() => fh.close().catch(() => undefined))))
        if (opened === null || "known" in opened) {
          yield* Effect.promise(() => fh.close().catch(() => undefined))
          return opened === null ? null : opened.known
        }
        const f = opened.tracked
        files.set(f.key, f)
        if (mode !== "recovered") pathIndex.set(p, f.key)
        watchFile(f)
        // commit the starting position at once: a restart must not apply startAt to a file we already followed
        if (opened.force) yield* commit(f, { force: true })
        pendingKeys.add(f.key)
        return f
      })

    const markOrphan = (f: Tracked, now: number): void => {
      if (f.orphanSince === null) f.orphanSince = now
      pendingKeys.add(f.key)
    }

    /** What does tailed path `p` hold now? Follows renames, notices rotations and deletions. */
    const reconcile = (p: string, mode: "initial" | "new", now: number) =>
      Effect.gen(function* () {
        const spec = specFor(p)
        if (spec === null) return
        const prevKey = pathIndex.get(p)
        const st = yield* io("stat", p, () => fsp.stat(p, { bigint: true })).pipe(
          Effect.catchIf(
            (e) => e.code === "ENOENT" || e.code === "ENOTDIR",
            () => Effect.succeed(null)
          )
        )
        const key = st !== null && st.isFile() ? fileKey(st) : null
        if (prevKey !== undefined && prevKey !== key) {
          // rotated away or deleted: keep reading the old file through its handle for a while
          pathIndex.delete(p)
          const old = files.get(prevKey)
          if (old !== undefined && old.path === p) markOrphan(old, now)
        }
        if (st === null || key === null) return
        const known = files.get(key)
        if (known !== undefined) {
          pathIndex.set(p, key)
          if (known.path !== p) {
            // renamed to another tailed path: the same file, followed on (unless it is still at its old path too)
            const stillThere = yield* io("stat", known.path, () => fsp.stat(known.path, { bigint: true })).pipe(
              Effect.map((s) => fileKey(s) === key),
              Effect.orElseSucceed(() => false)
            )
            if (!stillThere || known.orphanSince !== null) {
              known.path = p
              known.reader.source = `file:${p}`
            }
          }
          known.orphanSince = null
          pendingKeys.add(key)
          return
        }
        // a file we cannot open (EACCES) is tried again on every sweep (it is in no pathIndex),
        // so one made readable again is read without waiting for it to be written to; the
        // warning is said once per path
        yield* open(p, spec, mode, now).pipe(Effect.catchAll(ioWarning))
      })

    const guardPath = (p: string, effect: Effect.Effect<void, TailIoError>): Effect.Effect<void> =>
      effect.pipe(
        Effect.catchAllCause((cause) => {
          if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
          const failure = Cause.failureOption(cause)
          return failure._tag === "Some" ? ioWarning(failure.value) : Effect.logWarning(`tail: ${p}`, cause)
        })
      )

    const processPaths = (mode: "initial" | "new", now: number) =>
      Effect.gen(function* () {
        while (pendingPaths.size > 0) {
          const paths = [...pendingPaths]
          pendingPaths.clear()
          for (const p of paths) yield* guardPath(p, reconcile(p, mode, now))
        }
      })

    /** Each glob base folder once, as deep as its deepest glob needs. */
    const bases = new Map<string, { depth: number | undefined; readonly globs: Array<CompiledGlob> }>()
    for (const { glob } of globs) {
      const b = bases.get(glob.base)
      if (b === undefined) bases.set(glob.base, { depth: glob.depth, globs: [glob] })
      else {
        b.globs.push(glob)
        b.depth = b.depth === undefined || glob.depth === undefined ? undefined : Math.max(b.depth, glob.depth)
      }
    }

    /**
     * Files matching a glob that no watcher told us about (the start-up scan, then every
     * `rescanMs`): also what picks up a folder or file that became readable. What cannot be read
     * is skipped and said once per path; a walk cut short by its bounds is said once per folder.
     */
    const rescan = Effect.gen(function* () {
      for (const [base, { depth, globs: inBase }] of bases) {
        const found = yield* discover(base, { maxDepth: depth, maxEntries: MAX_ENTRIES })
        for (const p of found.files) if (!pathIndex.has(p) && inBase.some((g) => g.matches(p))) pendingPaths.add(p)
        for (const e of found.problems) {
          yield* warnOnce(`${e.op}:${e.path}:${e.code}`, `tail: cannot ${e.op} ${e.path}: ${e.code}; skipped, looked at again every sweep`, {
            path: e.path,
            code: e.code
          })
        }
        if (found.entriesLimited) {
          yield* warnOnce(`entries:${base}`, `tail: stopped looking for files under ${base} after ${MAX_ENTRIES} entries; files further in are not tailed (narrow tail[].path)`, {
            path: base
          })
        }
        if (found.depthLimited) {
          yield* warnOnce(`depth:${base}`, `tail: not looking for files more than ${MAX_DEPTH} folders below ${base}`, { path: base })
        }
      }
    })

    /**
     * Rotation while we were down: a checkpoint whose file is no longer at its path may be in
     * the same folder under another name (app.log.1): read it on from the checkpoint.
     */
    const recoverRotated = (now: number) =>
      Effect.gen(function* () {
        const byFolder = new Map<string, Map<string, string>>()
        for (const ckpt of deps.allCheckpoints()) {
          if (files.has(ckpt.key)) continue
          // a file recovered once was committed under its rotated name (app.log.1), which the
          // glob may not match: it still belongs to the spec whose folder holds it
          const spec = specFor(ckpt.path) ?? globs.find((g) => ckpt.path.startsWith(g.glob.base + path.sep))?.spec ?? null
          if (spec === null) continue
          const dir = path.dirname(ckpt.path)
          let inFolder = byFolder.get(dir)
          if (inFolder === undefined) {
            inFolder = new Map()
            byFolder.set(dir, inFolder)
            const names = yield* io("readdir", dir, () => fsp.readdir(dir)).pipe(Effect.orElseSucceed(() => [] as Array<string>))
            for (const name of names) {
              const p = path.join(dir, name)
              const st = yield* io("stat", p, () => fsp.stat(p, { bigint: true })).pipe(Effect.orElseSucceed(() => null))
              if (st !== null && st.isFile()) inFolder.set(fileKey(st), p)
            }
          }
          const found = inFolder.get(ckpt.key)
          if (found === undefined) continue
          const f = yield* open(found, spec, "recovered", now, `file:${ckpt.path}`).pipe(
            Effect.catchAll((e) => Effect.as(ioWarning(e), null))
          )
          if (f !== null) {
            yield* Effect.logInfo(`tail: ${ckpt.path} was rotated while stopped; reading ${found} on from the last commit`)
          }
        }
      })

    // ---- the reading fiber ------------------------------------------------------------------

    const step = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      yield* processPaths("new", now)
      for (const f of files.values()) {
        if (f.recheckAt !== null && f.recheckAt <= now) {
          f.recheckAt = null
          pendingKeys.add(f.key)
        }
      }
      let again = false
      if (pendingKeys.size > 0) {
        const keys = [...pendingKeys]
        pendingKeys.clear()
        for (const key of keys) {
          const f = files.get(key)
          if (f === undefined || f.retryAt > now) continue
          if (yield* guardFile(f, now, false, readCycle(f, now))) {
            pendingKeys.add(key)
            again = true
          }
        }
      }
      for (const f of [...files.values()]) {
        if (f.reader.hasPending && now - f.lastDataAt >= idleFlushMs && f.retryAt <= now) {
          yield* guardFile(
            f,
            now,
            undefined,
            Effect.zipRight(f.reader.flush(now), commit(f))
          )
        }
        if (f.orphanSince !== null && now - Math.max(f.orphanSince, f.lastDataAt) >= rotateWaitMs && f.retryAt <= now) {
          yield* guardFile(f, now, undefined, release(f, now))
        }
      }
      return again
    })

    /** Milliseconds until something is due without any event (idle flush, recheck, orphan release). */
    const nextDue = (now: number): number => {
      let due = Infinity
      for (const f of files.values()) {
        if (f.reader.hasPending) due = Math.min(due, Math.max(f.retryAt, f.lastDataAt + idleFlushMs))
        if (f.recheckAt !== null) due = Math.min(due, f.recheckAt)
        if (f.orphanSince !== null) due = Math.min(due, Math.max(f.retryAt, f.orphanSince + rotateWaitMs, f.lastDataAt + rotateWaitMs))
      }
      return Math.max(0, due - now)
    }

    const loop = Effect.gen(function* () {
      while (true) {
        const again = yield* mutex.withPermits(1)(step)
        if (again) {
          yield* Effect.yieldNow()
          continue
        }
        const wait = nextDue(yield* Clock.currentTimeMillis)
        if (wait === Infinity) yield* Queue.take(signal)
        else if (wait > 0) yield* Queue.take(signal).pipe(Effect.timeout(Duration.millis(wait)), Effect.ignore)
      }
    })

    // ---- start-up -----------------------------------------------------------------------------

    yield* Effect.addFinalizer(() =>
      Effect.forEach([...files.values()], closeFile, { discard: true }).pipe(Effect.tap(() => Effect.sync(() => files.clear())))
    )

    const onWatcherPath = (abs: string): void => {
      if (specFor(abs) === null) return
      pendingPaths.add(abs)
      wake()
    }

    for (const { glob } of globs) {
      yield* io("mkdir", glob.base, () => fsp.mkdir(glob.base, { recursive: true })).pipe(Effect.catchAll(ioWarning))
      // chokidar does not look inside a base folder that is itself a symlink (followSymlinks is
      // off): it watches the folder the base leads to, and its paths are mapped back to the base
      const root = yield* io("realpath", glob.base, () => fsp.realpath(glob.base)).pipe(Effect.orElseSucceed(() => glob.base))
      const toTailed = (p: string): string => {
        const abs = path.resolve(p)
        if (root === glob.base) return abs
        const rel = path.relative(root, abs)
        return rel === "" ? glob.base : rel.startsWith("..") || path.isAbsolute(rel) ? abs : path.join(glob.base, rel)
      }
      const onPath = (p: string): void => onWatcherPath(toTailed(p))
      const watcher = yield* Effect.acquireRelease(
        Effect.sync(() =>
          chokidarWatch(root, {
            ignoreInitial: true,
            persistent: true,
            // a symlink is reported, never followed: chokidar follows `a/up -> ..` loops without
            // end. Folders behind symlinks are found by `rescan`, which visits each one once; a
            // file behind a symlink is followed by its own fs.watch and the poll.
            followSymlinks: false,
            depth: Math.min(glob.depth ?? MAX_DEPTH, MAX_DEPTH),
            // `rescan` says what cannot be read, once per path
            ignorePermissionErrors: true,
            ignored: (p, st) => st !== undefined && st.isFile() && !glob.matches(toTailed(p))
          })
        ),
        (w) => Effect.promise(() => w.close().catch(() => undefined))
      )
      watcher
        .on("add", onPath)
        .on("change", onPath)
        .on("unlink", onPath)
        .on("error", (e) => {
          const message = e instanceof Error ? e.message : String(e)
          runFork(warnOnce(`watch:${glob.base}:${message}`, `tail: watching ${glob.base} failed: ${message}`, { path: glob.base }))
        })
      yield* Effect.async<void>((resume) => {
        const ready = (): void => resume(Effect.void)
        watcher.once("ready", ready)
        return Effect.sync(() => watcher.off("ready", ready))
      }).pipe(Effect.timeout(Duration.seconds(10)), Effect.ignore)
    }

    yield* mutex.withPermits(1)(
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        yield* rescan
        yield* processPaths("initial", now)
        yield* recoverRotated(now)
      })
    )

    yield* Effect.forkScoped(loop)
    yield* Effect.forkScoped(
      Effect.sync(() => {
        for (const p of pathIndex.keys()) pendingPaths.add(p)
        for (const key of files.keys()) pendingKeys.add(key)
        wake()
      }).pipe(Effect.repeat(Schedule.spaced(Duration.millis(pollMs))))
    )
    yield* Effect.forkScoped(
      rescan.pipe(
        Effect.tap(() => Effect.sync(() => pendingPaths.size > 0 && wake())),
        Effect.repeat(Schedule.spaced(Duration.millis(rescanMs))),
        Effect.delay(Duration.millis(rescanMs))
      )
    )
    wake()

    const drain = (): Effect.Effect<void> =>
      mutex.withPermits(1)(
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          yield* rescan
          for (const p of pathIndex.keys()) pendingPaths.add(p)
          yield* processPaths("new", now)
          for (const f of [...files.values()]) {
            yield* guardFile(
              f,
              now,
              undefined,
              Effect.gen(function* () {
                yield* readToEnd(f, now)
                yield* f.reader.flush(now)
                yield* commit(f)
              })
            )
          }
        })
      )

    return {
      stats: () =>
        [...files.values()].map((f) => ({ source: f.reader.source, path: f.path, offset: Math.max(0, f.committed.offset), size: f.size })),
      drain
    } satisfies TailerHandle
  })

// ---- replay ---------------------------------------------------------------------------------

export interface ReplayOptions {
  readonly service?: string | null
  readonly maxBatchLines?: number
  /** Called after every batch and at the end. */
  readonly onProgress?: (bytesRead: number, totalBytes: number) => void
}

export interface ReplaySummary {
  readonly lines: number
  readonly failures: number
  readonly ignored: number
  readonly bytes: number
}

/**
 * Read one whole file once through the tailer's reader, assembler and pipeline (`faultline
 * replay`). Batches carry no checkpoint (replay does not move the tailer's read positions);
 * event ids are the tailer's (`dev:ino` + offset), so replaying what was tailed stores nothing twice.
 */
export const replayFile = (
  file: string,
  sink: (batch: IngestBatch) => Effect.Effect<void>,
  opts?: ReplayOptions
): Effect.Effect<ReplaySummary, TailIoError> =>
  Effect.acquireUseRelease(
    io("open", file, () => fsp.open(file, "r")),
    (fh) =>
      Effect.gen(function* () {
        const abs = path.resolve(file)
        const st = yield* io("stat", abs, () => fh.stat({ bigint: true }))
        if (!st.isFile()) return yield* Effect.fail(new TailIoError({ op: "read", path: abs, code: "EISDIR", message: "not a regular file" }))
        const total = Number(st.size)
        const source = `file:${abs}`
        const reader = new LocalReader(fh.fd, abs, { key: fileKey(st), source, service: opts?.service ?? null, chunkSize: CHUNK }, { offset: 0, line: 1 })
        const maxLines = Math.max(1, opts?.maxBatchLines ?? 5000)
        let lines = 0
        let failures = 0
        let ignored = 0
        const send = Effect.suspend(() => {
          const batch = reader.takeBatch()
          lines += batch.lines
          failures += batch.events.length
          ignored += batch.ignored
          return sink({ source, events: batch.events, linesRead: batch.lines, ignored: batch.ignored, checkpoint: null, calls: batch.calls })
        })
        while (true) {
          const now = yield* Clock.currentTimeMillis
          const { more } = yield* reader.read(maxLines, now)
          if (!more) {
            yield* reader.finish(now)
            yield* send
            opts?.onProgress?.(reader.readOffset, Math.max(total, reader.readOffset))
            break
          }
          yield* send
          opts?.onProgress?.(reader.position().offset, total)
        }
        return { lines, failures, ignored, bytes: reader.readOffset }
      }),
    (fh) => Effect.promise(() => fh.close().catch(() => undefined))
  )
