import type { Readable } from "node:stream";
import yauzl from "yauzl";

/** The archive itself cannot be read (not a zip, cut short, a damaged entry). */
export class ZipError extends Error {
  override name = "ZipError";
}

export interface ZipEntry {
  name: string;
  /** Uncompressed size as the archive states it. */
  size: number;
  /** The entry's bytes, streamed (an entry too big to hold: the CVE List baseline's inner archive). */
  open(): Promise<Readable>;
  /** The entry's bytes, read whole (call it only for the entries wanted: the others are skipped unread). */
  read(): Promise<Buffer>;
}

/**
 * The file entries of a zip, one at a time, streamed from disk (yauzl, lazy entries): the archive is
 * never whole in memory. Every failure of the archive (opening, listing, reading an entry) is a ZipError.
 */
export async function* zipEntries(file: string): AsyncIterable<ZipEntry> {
  const zip = await yauzl.openPromise(file, { lazyEntries: true, autoClose: false }).catch((err: Error) => {
    throw new ZipError(err.message);
  });
  try {
    const entries = zip.eachEntry()[Symbol.asyncIterator]();
    for (;;) {
      const next = await entries.next().catch((err: Error) => {
        throw new ZipError(err.message);
      });
      if (next.done) return;
      const entry = next.value;
      if (entry.fileName.endsWith("/")) continue;
      const open = () =>
        zip.openReadStreamPromise(entry).catch((err: Error) => {
          throw new ZipError(err.message);
        });
      yield {
        name: entry.fileName,
        size: entry.uncompressedSize,
        open,
        read: async () => {
          try {
            const chunks: Buffer[] = [];
            for await (const c of await open()) chunks.push(c as Buffer);
            return Buffer.concat(chunks);
          } catch (err) {
            throw err instanceof ZipError ? err : new ZipError((err as Error).message);
          }
        },
      };
    }
  } finally {
    zip.close();
  }
}
