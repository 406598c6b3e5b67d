/**
 * Every module of `providers/`, in the order of their names: adding a provider is adding a file.
 * The bundled daemon (scripts/bundle.mjs) replaces this module with static imports of the same
 * files, listed when it is built.
 */
import { readdirSync } from "node:fs"
import { fileURLToPath } from "node:url"
import type { ProviderFamily } from "./types.js"

const PROVIDERS_DIR = new URL("./providers/", import.meta.url)

const isModule = (name: string): boolean => (name.endsWith(".js") || name.endsWith(".ts")) && !name.endsWith(".d.ts")

export async function loadFamilies(): Promise<ProviderFamily[]> {
  const names = readdirSync(fileURLToPath(PROVIDERS_DIR)).filter(isModule).sort()
  const mods = await Promise.all(names.map((n) => import(new URL(n, PROVIDERS_DIR).href) as Promise<{ default: ProviderFamily }>))
  return mods.map((m) => m.default)
}
