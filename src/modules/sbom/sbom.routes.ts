import { z } from "zod";
import { media, route, type RouteDef } from "../../platform/http/route.js";
import { ProjectParams } from "../projects/projects.schemas.js";
import { StackParams } from "../stacks/stacks.schemas.js";
import { presentImport, presentInventory, presentSbom, presentStackFromSbom } from "./sbom.presenter.js";
import {
  CycloneDxBom, SBOM_BODY, SbomImport, SbomInventoryPage, SbomInventoryQuery, SbomParams, SbomRemoved, SbomUploadQuery, StackFromSbom, StackFromSbomQuery, StackSbom,
} from "./sbom.schemas.js";
import type { SbomService } from "./sbom.service.js";

const BASE = "/api/v1/organizations/:org_id/projects/:project_id/stacks";
const TAGS = ["stacks"];
const WRITE = "stacks-write";

const IMPORT_RULES =
  "Components become items: a purl item per package URL (its version from the purl, else from the component), a cpe item per CPE, both when a component has both; nested components are flattened and duplicates merged. A component with neither, or whose purl or CPE cannot be matched (pkg:generic, pkg:github…), is ignored and listed with its reason. Invalid documents are refused with a 422 naming each fault (a JSON pointer in `loc`, or `line N` of an XML document) and nothing is written — unless ?accepter_non_conforme=true: a document that fails its schema but can be read is then loaded, its faults kept in the SBOM's `fault_count` and `faults`.";
const DIFF_RULES =
  "The document's identity (CycloneDX serialNumber, else SPDX documentNamespace, else the name of the software it describes, else the stack it is loaded into) decides whether it is new to the stack (201) or replaces the SBOM loaded under it (200): the answer is the difference, item by item (by purl or CPE without version). Added and changed items are matched against the stored CVEs; unchanged ones are left alone. Alerts whose CVE no item of the project matches any more once removed and changed items are gone are marked matching=false with a cve.updated event — never deleted: their read state, tags and case stay. All in one transaction.";

/** SBOMs in stacks: upload (a stack from one, or into one), the stack as CycloneDX, the documents loaded. */
export function sbomRoutes(service: SbomService): RouteDef[] {
  return [
    route({
      operationId: "importStackSbom",
      method: "POST", url: `${BASE}/:stack_id/sbom`, auth: "both", project: true, scope: WRITE, tags: TAGS, status: 200,
      summary: "Load an SBOM into a stack (CycloneDX 1.2–1.7 JSON or XML, SPDX 2.2–2.3 JSON); again: replace it and answer the difference",
      description: `${IMPORT_RULES} ${DIFF_RULES}`,
      params: StackParams, query: SbomUploadQuery, rawBody: SBOM_BODY,
      responses: { 200: SbomImport, 201: SbomImport },
      handler: async ({ project, params, query, raw, reply }) => {
        const r = await service.importInto(project, params.stack_id, {
          input: raw!.stream, mediaType: raw!.mediaType, lenient: query.accepter_non_conforme,
        });
        if (r.created) reply.code(201);
        return presentImport(r);
      },
    }),
    route({
      operationId: "createStackFromSbom",
      errors: { 409: "a stack of the project has this name (nom_deja_utilise)" },
      method: "POST", url: `${BASE}/sbom`, auth: "both", project: true, scope: WRITE, tags: TAGS, status: 201,
      summary: "Create a stack from an SBOM in one call (CycloneDX 1.2–1.7 JSON or XML, SPDX 2.2–2.3 JSON)",
      description: `The stack is named by ?name=, else after the software the document describes. ${IMPORT_RULES} The answer gives the stack without its items (read them with GET …/stacks/{stack_id}/items) and what the import did.`,
      params: ProjectParams, query: StackFromSbomQuery, rawBody: SBOM_BODY,
      responses: { 201: StackFromSbom },
      handler: async ({ project, query, raw }) =>
        presentStackFromSbom(
          await service.createFrom(project, query.name, { input: raw!.stream, mediaType: raw!.mediaType, lenient: query.accepter_non_conforme }),
        ),
    }),
    route({
      operationId: "exportStackSbom",
      method: "GET", url: `${BASE}/:stack_id/sbom`, auth: "both", project: true, tags: TAGS,
      summary: "The stack as a CycloneDX 1.6 JSON document (an attachment)",
      description:
        "One component per purl or CPE item of the stack (from an SBOM or typed by hand). serialNumber is stable for the stack (urn:uuid: of a UUID derived from its id); version grows each time its items change (a counter bumped by every item added, changed or removed, and every SBOM loaded or removed).",
      params: StackParams,
      responses: { 200: media({ "application/vnd.cyclonedx+json": CycloneDxBom }) },
      handler: async ({ project, params, reply }) => {
        const bom = await service.exportStack(project, params.stack_id);
        reply.header("content-type", "application/vnd.cyclonedx+json; charset=utf-8");
        reply.header("content-disposition", `attachment; filename="stack-${params.stack_id}.cdx.json"`);
        return bom;
      },
    }),
    route({
      operationId: "listStackSboms",
      method: "GET", url: `${BASE}/:stack_id/sboms`, auth: "both", project: true, tags: TAGS,
      summary: "The SBOM documents loaded in a stack, oldest first",
      params: StackParams,
      responses: { 200: z.array(StackSbom) },
      handler: async ({ project, params }) => (await service.list(project, params.stack_id)).map(presentSbom),
    }),
    route({
      operationId: "listSbomInventory",
      method: "GET", url: `${BASE}/:stack_id/sboms/:sbom_id/inventaire`, auth: "both", project: true, tags: TAGS,
      summary: "An SBOM's inventory: the components that made no item, with why they cannot be matched (never matched), paged",
      params: SbomParams, query: SbomInventoryQuery,
      responses: { 200: SbomInventoryPage },
      handler: async ({ project, params, query }) => {
        const { rows, total } = await service.inventory(project, params.stack_id, params.sbom_id, query);
        return { items: rows.map(presentInventory), total, page: query.page, page_size: query.page_size };
      },
    }),
    route({
      operationId: "deleteStackSbom",
      method: "DELETE", url: `${BASE}/:stack_id/sboms/:sbom_id`, auth: "both", project: true, scope: WRITE, tags: TAGS,
      summary: "Remove an SBOM from a stack with its items; the alerts they raised are marked, not deleted",
      description:
        "Alerts whose CVE no item of the project matches any more are marked matching=false with a cve.updated event; their read state, tags and case stay.",
      params: SbomParams,
      responses: { 200: SbomRemoved },
      handler: async ({ project, params }) => {
        const r = await service.remove(project, params.stack_id, params.sbom_id);
        return { items_retires: r.removed, alertes_plus_correspondantes: r.unmatched };
      },
    }),
  ];
}
