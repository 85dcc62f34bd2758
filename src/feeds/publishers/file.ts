import { publisher, type Publisher } from "../sync/publisher.js";

type Validators = { etag?: string; lastModified?: string };

/**
 * A source published as one file at a fixed address (the KEV catalog, EPSS's current scores, a
 * news feed): a conditional GET with the validators of the copy applied last; a 304 costs nothing.
 * The checkpoint is those validators, saved once the file is imported.
 */
export function singleFile(defaultAddresses: readonly string[], every: number): Publisher {
  return publisher({
    defaultAddresses,
    every,
    protocol: "un fichier, requête conditionnelle (ETag, Last-Modified)",
    async sync(ctx) {
      const last = (ctx.checkpoint ?? {}) as Validators;
      const got = await ctx.fetch(ctx.address, { conditional: last });
      if (got.status === 304) return;
      if (!got.file) throw new Error(`HTTP ${got.status}`);
      await ctx.import([got.file]);
      const etag = got.headers.get("etag");
      const lastModified = got.headers.get("last-modified");
      const published = lastModified ? new Date(lastModified) : new Date();
      await ctx.save(
        { ...(etag ? { etag } : {}), ...(lastModified ? { lastModified } : {}) },
        Number.isNaN(published.getTime()) ? new Date() : published,
      );
    },
  });
}
