/**
 * A JSON SBOM, streamed once: the format is told by the media type or by the first root member that
 * names it (`bomFormat`, `spdxVersion`), items streamed before that are held until it is known.
 */
import { Faults } from "./collect.js";
import { CDX_COMPONENT, CDX_DEPENDENCY, CycloneDxJson } from "./cyclonedx-json.js";
import { walkJson } from "./json-split.js";
import type { Path, StreamRules } from "./json-stream.js";
import { SPDX_ITEM_KINDS, SpdxJson } from "./spdx-json.js";
import { type ReadOptions, type SbomDocument, type SbomFormat, SbomInvalid } from "./types.js";
import { ACCEPTED, unsupported } from "./unsupported.js";

/** What a format's reader does with the streamed items and root members. */
export interface JsonCollector {
  readonly ready: boolean;
  rootMember(key: string, value: unknown): void;
  itemStart(kind: string, seq: number): void;
  item(kind: string, seq: number, path: Path, value: unknown): void;
  finish(root: Record<string, unknown>): SbomDocument;
}

const ROOT_ARRAYS: Record<string, string> = {
  components: CDX_COMPONENT,
  dependencies: CDX_DEPENDENCY,
  ...SPDX_ITEM_KINDS,
};

const rules: StreamRules = {
  arrayKind(parent, key) {
    if (parent === "root") return ROOT_ARRAYS[key] ?? null;
    if (parent === CDX_COMPONENT && key === "components") return CDX_COMPONENT;
    return null;
  },
  objectKind(parent, key) {
    if (parent === "root" && key === "metadata") return "cdx-metadata";
    if (parent === "cdx-metadata" && key === "component") return CDX_COMPONENT;
    return "other";
  },
};

type Pending = { start: true; kind: string; seq: number } | { start: false; kind: string; seq: number; path: Path; value: unknown };

const FORMAT_NAMES: Record<SbomFormat, string> = { cyclonedx: "CycloneDX", spdx: "SPDX" };

/** Reads a JSON SBOM (`expected`: the format its media type announces, if it does). */
export async function readJsonSbom(
  chunks: AsyncIterable<Buffer>,
  expected: SbomFormat | null,
  options: ReadOptions = {},
): Promise<SbomDocument> {
  const faults = new Faults(options.lenient);
  let collector: JsonCollector | null = null;
  let format: SbomFormat | null = null;
  // Items read before the format and its version are known: held, then handed over in order.
  let pending: Pending[] = [];

  const choose = (f: SbomFormat, at: string) => {
    if (format) {
      if (format !== f) throw mixed(at);
      return;
    }
    if (expected && expected !== f) {
      throw new SbomInvalid("Le document ne correspond pas à son type de média.", [
        { at, message: `Le type de média annonce un document ${FORMAT_NAMES[expected]}, le document est un ${FORMAT_NAMES[f]}.` },
      ]);
    }
    format = f;
    collector = f === "cyclonedx" ? new CycloneDxJson(faults) : new SpdxJson(faults);
  };
  const flush = () => {
    const c = collector as JsonCollector;
    if (!c.ready || pending.length === 0) return;
    const held = pending;
    pending = [];
    for (const p of held) {
      if (p.start) c.itemStart(p.kind, p.seq);
      else c.item(p.kind, p.seq, p.path, p.value);
    }
  };

  const root = await walkJson(chunks, rules, {
    rootMember(key, value) {
      if (key === "bomFormat") choose("cyclonedx", "/bomFormat");
      else if (key === "spdxVersion") choose("spdx", "/spdxVersion");
      else if (key === "@context" || key === "@graph") throw unsupported("SPDX 3 (JSON-LD)", `/${key}`);
      if (collector) {
        (collector as JsonCollector).rootMember(key, value);
        flush();
      }
    },
    itemStart(kind, seq) {
      if (collector?.ready) collector.itemStart(kind, seq);
      else pending.push({ start: true, kind, seq });
    },
    item(kind, seq, path, value) {
      if (collector?.ready) collector.item(kind, seq, path, value);
      else pending.push({ start: false, kind, seq, path, value });
    },
  });

  if (!root || typeof root !== "object" || Array.isArray(root)) {
    throw new SbomInvalid("Le document n'est pas un SBOM.", [{ at: "", message: `Un objet JSON est attendu. ${ACCEPTED}` }]);
  }
  if (!collector) {
    if (expected) choose(expected, "");
    else {
      throw new SbomInvalid("Format de SBOM non reconnu.", [
        { at: "", message: `Le document JSON n'a ni « bomFormat » (CycloneDX) ni « spdxVersion » (SPDX). ${ACCEPTED}` },
      ]);
    }
  }
  const c = collector as unknown as JsonCollector;
  if (c.ready) flush();
  return c.finish(root as Record<string, unknown>);
}

function mixed(at: string): SbomInvalid {
  return new SbomInvalid("Le document mêle CycloneDX et SPDX.", [
    { at, message: "Le document a à la fois « bomFormat » (CycloneDX) et « spdxVersion » (SPDX)." },
  ]);
}
