/**
 * Tests that start faultline as a user does run the built CLI (dist/). Rebuild it when any
 * source file is newer than the build, so `npm test` always tests the code in the tree.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"

const root = path.resolve(import.meta.dirname, "..")

const newest = (dir: string): number => {
  let t = 0
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name)
    t = Math.max(t, e.isDirectory() ? newest(p) : fs.statSync(p).mtimeMs)
  }
  return t
}

export default function setup(): void {
  const built = path.join(root, "dist/src/main.js")
  const stale = !fs.existsSync(built) || Math.max(newest(path.join(root, "src")), newest(path.join(root, "bench")), newest(path.join(root, "scripts"))) > fs.statSync(built).mtimeMs
  if (stale) {
    try {
      execFileSync(process.execPath, [path.join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"], { cwd: root, stdio: "inherit" })
      execFileSync(process.execPath, [path.join(root, "scripts/bundle.mjs")], { cwd: root, stdio: "inherit" })
    } catch {
      // `npm ci` (prepare) fails hard on a broken build; here the tests that need dist/ will say so
      console.warn("global-setup: the build reported errors; tests that run dist/ may fail")
    }
    if (fs.existsSync(built)) fs.utimesSync(built, new Date(), new Date())
  }
}
