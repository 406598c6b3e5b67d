/**
 * Running a check as a user that file permissions apply to. Root ignores `chmod 000`, and CI runs
 * as root: there the check runs in a child process under uid/gid `nobody` (65534), which the
 * kernel holds to the modes like any service account. Run by another user, it runs as that user.
 * The child runs the built sources (dist/, kept up to date by the global setup).
 */
import { spawn, type ChildProcess } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

export const isRoot = process.getuid?.() === 0
export const NOBODY = 65534

/** A temporary folder the unprivileged child can read and write (mkdtemp makes it 0700). */
export const sharedTempDir = (): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "faultline-nonroot-"))
  fs.chmodSync(dir, 0o777)
  return dir
}

/** nonroot-child.mjs (`discover <base>` or `tailer <json>`) as an unprivileged user, stdin/stdout piped. */
export const spawnUnprivileged = (args: ReadonlyArray<string>): ChildProcess =>
  spawn(process.execPath, [path.join(import.meta.dirname, "nonroot-child.mjs"), ...args], {
    cwd: path.resolve(import.meta.dirname, "../.."),
    stdio: ["pipe", "pipe", "pipe"],
    ...(isRoot ? { uid: NOBODY, gid: NOBODY } : {})
  })

/** Collects a child's stdout as JSON lines. */
export class JsonLines<A> {
  readonly items: Array<A> = []
  stderr = ""
  private partial = ""
  constructor(readonly child: ChildProcess) {
    child.stdout!.setEncoding("utf8")
    child.stdout!.on("data", (d: string) => {
      const parts = (this.partial + d).split("\n")
      this.partial = parts.pop()!
      for (const p of parts) if (p.trim() !== "") this.items.push(JSON.parse(p) as A)
    })
    child.stderr!.setEncoding("utf8")
    child.stderr!.on("data", (d: string) => (this.stderr += d))
  }
}
