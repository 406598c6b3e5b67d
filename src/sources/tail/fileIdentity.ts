/**
 * A file is identified by what it is, never by its path (as in Vector): `dev:ino` names it
 * while it exists, and a hash of its first bytes (up to `HEAD_MAX` bytes) tells the file we
 * read from another one that got the same inode later, or from the same inode rewritten
 * after a truncation.
 */
import { createHash } from "node:crypto"
import * as fs from "node:fs"

export const HEAD_MAX = 1024

export const fileKey = (st: fs.BigIntStats): string => `${st.dev}:${st.ino}`

export const hashHead = (bytes: Uint8Array): string => createHash("sha1").update(bytes).digest("hex").slice(0, 16)

export interface Head {
  readonly hash: string
  readonly length: number
}

/**
 * Read the first `min(length, size)` bytes of an open file. Synchronous, like the tailer's reads:
 * a page-cache read takes microseconds, and the tailer checks the head before every batch.
 */
export const readHeadBytes = (fd: number, length: number): Buffer => {
  const buf = Buffer.allocUnsafe(length)
  let got = 0
  while (got < length) {
    const n = fs.readSync(fd, buf, got, length - got, got)
    if (n === 0) break
    got += n
  }
  return buf.subarray(0, got)
}

/**
 * Compare the file's first bytes with a known head. `matches` is false when the file is
 * shorter than the known head or its bytes differ; `head` is the file's current head
 * (grown up to `HEAD_MAX` when the file has grown).
 */
export const checkHead = (fd: number, known: Head | null): { readonly matches: boolean; readonly head: Head } => {
  const bytes = readHeadBytes(fd, HEAD_MAX)
  const head: Head = { hash: hashHead(bytes), length: bytes.length }
  if (known === null) return { matches: true, head }
  if (bytes.length < known.length) return { matches: false, head }
  const matches = (bytes.length === known.length ? head.hash : hashHead(bytes.subarray(0, known.length))) === known.hash
  return { matches, head }
}
