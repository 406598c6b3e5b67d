/**
 * Prints one plain closing line, `tests: N passed, N failed, N skipped`, after vitest's own
 * summary: a line any CI can read without knowing vitest's format.
 */
import type { Reporter } from "vitest/reporters"

interface TaskLike {
  readonly type: string
  readonly mode?: string
  readonly result?: { readonly state?: string }
  readonly tasks?: ReadonlyArray<TaskLike>
}

export default class SummaryReporter implements Reporter {
  onFinished(files: ReadonlyArray<TaskLike> = [], errors: ReadonlyArray<unknown> = []): void {
    let passed = 0
    let failed = 0
    let skipped = 0
    const walk = (tasks: ReadonlyArray<TaskLike>): void => {
      for (const t of tasks) {
        if (t.type === "test") {
          const state = t.result?.state
          if (state === "pass") passed++
          else if (state === "fail") failed++
          else skipped++
        } else if (t.tasks) walk(t.tasks)
      }
    }
    walk(files)
    // a file that failed to load has no tests but is a failure
    for (const f of files) if (f.result?.state === "fail" && (f.tasks ?? []).length === 0) failed++
    failed += errors.length
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`)
  }
}
