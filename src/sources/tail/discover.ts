/**
 * Finding the files under a glob's base folder (the tailer's start-up scan and periodic sweep).
 *
 * Hostile trees are the norm here, so the walk is bounded the way established tailers bound it:
 * - directories are visited by identity (`dev:ino`, from `stat`, which follows symbolic links):
 *   a folder reached again through a symlink (`logs/a/up -> ..`) is not read twice, so a loop
 *   ends; a symlink to a folder elsewhere is followed once;
 * - breadth first, so a folder is found under its shortest path (the same one every sweep);
 * - at most `maxDepth` folders deep (`MAX_DEPTH` when the glob has `**`) and at most
 *   `maxEntries` directory entries per walk: the limit that stopped it is reported;
 * - a folder or entry that cannot be read (EACCES, EPERM, ELOOP, ...) is skipped and reported,
 *   never the end of the walk; one that vanished meanwhile (ENOENT, ENOTDIR) is skipped silently.
 *
 * Files are regular files and symbolic links to regular files (their link path is returned).
 */
import { Effect } from "effect"
import type { Dir, Dirent, Stats } from "node:fs"
import * as fsp from "node:fs/promises"
import * as path from "node:path"

/** How deep a `**` glob is followed. */
export const MAX_DEPTH = 32
/** Directory entries looked at per walk. */
export const MAX_ENTRIES = 100_000

export interface DiscoverLimits {
  /** Folder levels below `base` to read (`undefined`: `MAX_DEPTH`); capped at `MAX_DEPTH`. */
  readonly maxDepth?: number | undefined
  readonly maxEntries?: number
}

export interface DiscoverProblem {
  readonly op: "stat" | "readdir"
  readonly path: string
  readonly code: string
}

export interface Discovery {
  /** Files found (regular files and symlinks to them), shallowest first. */
  readonly files: Array<string>
  /** What could not be read: skipped, the rest was walked. */
  readonly problems: Array<DiscoverProblem>
  /** The walk stopped at `maxEntries` entries: files further on were not looked for. */
  readonly entriesLimited: boolean
  /** Folders below `MAX_DEPTH` were not read (only reported when the depth is not the glob's own). */
  readonly depthLimited: boolean
}

/** The folder or entry is simply gone (a race with the application): nothing to say. */
const vanished = (code: string): boolean => code === "ENOENT" || code === "ENOTDIR"

const codeOf = (e: unknown): string => (e as NodeJS.ErrnoException)?.code ?? "EUNKNOWN"

const identity = (st: Stats): string => `${st.dev}:${st.ino}`

/**
 * Walk `base`. Never fails: what cannot be read is in `problems`. Async (one folder at a time);
 * the caller holds no lock the reading fiber needs while it runs.
 */
export const discover = (base: string, limits: DiscoverLimits = {}): Effect.Effect<Discovery> =>
  Effect.promise(() => walk(base, limits))

const walk = async (base: string, limits: DiscoverLimits): Promise<Discovery> => {
  const depthCap = Math.min(limits.maxDepth ?? MAX_DEPTH, MAX_DEPTH)
  const capIsOurs = limits.maxDepth === undefined || limits.maxDepth > MAX_DEPTH
  const maxEntries = limits.maxEntries ?? MAX_ENTRIES
  const files: Array<string> = []
  const problems: Array<DiscoverProblem> = []
  let entriesLimited = false
  let depthLimited = false
  let entries = 0

  const statOf = async (p: string): Promise<Stats | null> => {
    try {
      return await fsp.stat(p)
    } catch (e) {
      const code = codeOf(e)
      if (!vanished(code)) problems.push({ op: "stat", path: p, code })
      return null
    }
  }

  const root = await statOf(base)
  if (root === null || !root.isDirectory()) return { files, problems, entriesLimited, depthLimited }
  const visited = new Set<string>([identity(root)])
  let level: Array<string> = [base]
  for (let depth = 0; level.length > 0 && !entriesLimited; depth++) {
    const next: Array<string> = []
    for (const dir of level) {
      let handle: Dir
      try {
        handle = await fsp.opendir(dir, { bufferSize: 256 })
      } catch (e) {
        const code = codeOf(e)
        if (!vanished(code)) problems.push({ op: "readdir", path: dir, code })
        continue
      }
      try {
        for await (const e of handle as AsyncIterable<Dirent>) {
          if (++entries > maxEntries) {
            entriesLimited = true
            break
          }
          const p = path.join(dir, e.name)
          if (e.isFile()) {
            files.push(p)
            continue
          }
          if (!e.isDirectory() && !e.isSymbolicLink()) continue // fifos, sockets, devices
          const st = await statOf(p)
          if (st === null) continue
          if (st.isFile()) {
            files.push(p)
          } else if (st.isDirectory()) {
            const id = identity(st)
            if (visited.has(id)) continue
            if (depth >= depthCap) {
              if (capIsOurs) depthLimited = true
              continue
            }
            visited.add(id)
            next.push(p)
          }
        }
      } catch (e) {
        // the folder went away or became unreadable while it was listed: keep what was found
        const code = codeOf(e)
        if (!vanished(code)) problems.push({ op: "readdir", path: dir, code })
      } finally {
        // `for await` closes the handle when it ends or breaks; a failed read may leave it open
        await handle.close().catch(() => undefined)
      }
      if (entriesLimited) break
    }
    level = next
  }
  return { files, problems, entriesLimited, depthLimited }
}
