import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const findPackageJson = (): { version: string } => {
  let dir = path.dirname(fileURLToPath(import.meta.url))
  for (let i = 0; i < 5; i++) {
    const p = path.join(dir, "package.json")
    if (fs.existsSync(p)) return JSON.parse(fs.readFileSync(p, "utf8")) as { version: string }
    dir = path.dirname(dir)
  }
  return { version: "0.0.0" }
}

export const version: string = findPackageJson().version
