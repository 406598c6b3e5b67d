/**
 * After `tsc`: the daemon's entry (dist/src/main.js) and its scan worker (dist/src/scanWorker.js,
 * next to it, where the bundled reader looks for it) as one ES module each. Loading ~600 modules
 * from node_modules took ~1.2 s of a daemon's start-up and ~25 MB of its memory; one file with
 * only the code it uses starts in ~0.5 s. better-sqlite3 (a native addon), pino and chokidar stay
 * in node_modules. The other files of dist/ (the modules tsc wrote) stay for the tests and the
 * benchmarks, which import them one by one.
 */
import * as esbuild from "esbuild"
import * as fs from "node:fs"
import * as path from "node:path"

const root = path.resolve(import.meta.dirname, "..")
const dist = path.join(root, "dist/src")

/** catalog/load.js lists providers/ at run time; in the bundle, the files of providers/ now. */
const staticProviders = {
  name: "static-providers",
  setup(build) {
    build.onLoad({ filter: /[\\/]catalog[\\/]load\.js$/ }, (args) => {
      const dir = path.join(path.dirname(args.path), "providers")
      const names = fs.readdirSync(dir).filter((n) => n.endsWith(".js")).sort()
      const imports = names.map((n, i) => `import p${i} from ${JSON.stringify(`./providers/${n}`)}`).join("\n")
      return {
        contents: `${imports}\nexport async function loadFamilies() { return [${names.map((_, i) => `p${i}`).join(", ")}] }\n`,
        resolveDir: path.dirname(args.path),
        loader: "js"
      }
    })
  }
}

const common = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  external: ["better-sqlite3", "pino", "chokidar"],
  // CommonJS modules inside the bundle call require()
  banner: { js: 'import { createRequire as __faultlineRequire } from "node:module"; const require = __faultlineRequire(import.meta.url);' },
  plugins: [staticProviders],
  logLevel: "warning",
  legalComments: "none",
  // less text for V8 to read at start-up; names are kept, so stack traces still name functions
  minifyWhitespace: true,
  minifySyntax: true
}

/**
 * esbuild escapes non-ASCII characters in strings, not in regular expression literals (the
 * catalogue's Chinese wordings). One such character makes V8 keep the whole 3 MB source as a
 * two-byte string (6 MB of heap for as long as the daemon runs). The rest is escaped here: a
 * `\uXXXX` escape (two for a character outside the BMP) means the same code units in a regex
 * literal with or without the `u` flag, inside a class or not.
 */
const escapeNonAscii = (file) => {
  const text = fs.readFileSync(file, "utf8")
  const escaped = text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
  if (escaped !== text) fs.writeFileSync(file, escaped)
}

const main = path.join(dist, "main.js")
const worker = path.join(dist, "scanWorker.js")
await esbuild.build({ ...common, entryPoints: [main], outfile: main, allowOverwrite: true })
await esbuild.build({ ...common, entryPoints: [path.join(dist, "sources/tail/scanWorker.js")], outfile: worker })
escapeNonAscii(main)
escapeNonAscii(worker)
fs.chmodSync(main, 0o755)
