// SBOM upload: the media type told from the file, the call (raw body), and the server's refusals in
// words. The server reads the content itself (src/sbom/read.ts): the media type is a hint it checks,
// so a generic one is sent whenever the file does not say clearly which format it is.
import { ApiError, api } from "../../api/client";
import type { components } from "../../api/schema";

export { type Fault, faultsOf } from "../../api/faults";

export type SbomImport = components["schemas"]["SbomImportOut"];
export type StackFromSbom = components["schemas"]["StackFromSbomOut"];
export type StackSbom = components["schemas"]["StackSbomOut"];

/** The server's limit (src/modules/sbom/sbom.schemas.ts MAX_SBOM_BYTES): 50 MiB. */
export const MAX_SBOM_BYTES = 50 * 1024 * 1024;

/** What the file input offers (a drop takes any file; the server says what it cannot read). */
export const SBOM_ACCEPT = ".json,.xml,.cdx.json,.spdx.json,.cdx.xml,application/json,application/xml,text/xml";

/** How much of the file is read to tell its format. */
const HEAD = 64 * 1024;

/**
 * The Content-Type for this file: XML → CycloneDX XML (SPDX has no XML the server reads); JSON →
 * CycloneDX or SPDX when the first bytes name one (`"bomFormat"`, `"spdxVersion"`), else
 * application/json and the server decides.
 */
export function sbomMediaType(name: string, head: string): string {
  const start = head.replace(/^\uFEFF/, "").trimStart();
  const lower = name.toLowerCase();
  if (start.startsWith("<") || (!start && lower.endsWith(".xml"))) {
    return /cyclonedx\.org\/schema\/bom/.test(start) || lower.endsWith(".cdx.xml") || lower.endsWith(".xml")
      ? "application/vnd.cyclonedx+xml"
      : "application/xml";
  }
  const cdx = /"bomFormat"\s*:\s*"CycloneDX"/.test(start);
  const spdx = /"spdxVersion"\s*:/.test(start);
  if (cdx && !spdx) return "application/vnd.cyclonedx+json";
  if (spdx && !cdx) return "application/spdx+json";
  return "application/json";
}

/** The first bytes of a file as text (enough to see its format). */
export async function headOf(file: Blob): Promise<string> {
  return file.slice(0, HEAD).text();
}

/** A file over the limit, refused before it is sent (the server would answer 413). */
export class TooLarge extends Error {
  constructor(readonly size: number) {
    super("too large");
  }
}

type Path = { org_id: string; project_id: string };

/** An import's answer with whether the document was new to the stack (201) or replaced one (200). */
export interface Imported<T> {
  result: T;
  created: boolean;
}

async function answer<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<Imported<T>> {
  const { data, error, response } = await call;
  if (!response.ok) throw new ApiError(response.status, (error as { detail?: unknown } | undefined)?.detail);
  return { result: data as T, created: response.status === 201 };
}

async function prepared(file: File): Promise<{ type: string }> {
  if (file.size > MAX_SBOM_BYTES) throw new TooLarge(file.size);
  return { type: sbomMediaType(file.name, await headOf(file)) };
}

/** POST …/stacks/{stack_id}/sbom: the file as it is (raw body, its media type); `lenient`: accept it with its schema faults. */
export async function importInto(path: Path, stackId: string, file: File, lenient = false): Promise<Imported<SbomImport>> {
  const { type } = await prepared(file);
  return answer(
    api.POST("/api/v1/organizations/{org_id}/projects/{project_id}/stacks/{stack_id}/sbom", {
      params: { path: { ...path, stack_id: stackId }, query: lenient ? { accepter_non_conforme: true } : {} },
      body: file as unknown as string,
      bodySerializer: (b: unknown) => b as BodyInit,
      headers: { "content-type": type },
    }),
  );
}

/** POST …/stacks/sbom?name=: a new stack from the file (named after the software it describes when no name is given). */
export async function createFrom(path: Path, name: string, file: File): Promise<Imported<StackFromSbom>> {
  const { type } = await prepared(file);
  const trimmed = name.trim();
  return answer(
    api.POST("/api/v1/organizations/{org_id}/projects/{project_id}/stacks/sbom", {
      params: { path, query: trimmed ? { name: trimmed } : {} },
      body: file as unknown as string,
      bodySerializer: (b: unknown) => b as BodyInit,
      headers: { "content-type": type },
    }),
  );
}
