import { Enums, Models, Serialize, Spec, Types } from "@cyclonedx/cyclonedx-library";
import { PackageURL } from "packageurl-js";
import type { VexJustification } from "../../platform/db/schema/index.js";
import { exceptionText, productsOf, uuidOf, type VexEntry, type VexModel, type VexProduct } from "./vex.model.js";
import { sourceOf } from "./vex.sources.js";

/**
 * CycloneDX 1.6 VEX from the read model, built with @cyclonedx/cyclonedx-library's models and its
 * JSON serializer (spec 1.6, lists sorted: the same state gives the same bytes). Pure. The BOM
 * describes the project (metadata.component); its components are the stack items the alerts
 * matched, and each vulnerability `affects` every one its CVE matches. Its `source` is the database
 * its id belongs to (vex.sources.ts), its aliases are `references` with theirs. CycloneDX has its own justification codes:
 * the CISA justification travels as the standard code nearest to it (ADR 0031) and, whole, in the
 * property `vigie:justification_vex`; an exception's expiry has no field, so it is in
 * analysis.detail and in the properties `vigie:exception:*`. The library's Analysis has no
 * firstIssued/lastUpdated: the vulnerability's `updated` carries the case's last change.
 */

const { AnalysisState, AnalysisJustification, AnalysisResponse, Severity, RatingMethod } = Enums.Vulnerability;

/** CISA → CycloneDX. component_not_present is written as state false_positive (no justification): an alert exists only because a stack item matched, so a component that is not there was a false match. */
export const CDX_JUSTIFICATION: Record<Exclude<VexJustification, "component_not_present">, Enums.Vulnerability.AnalysisJustification> = {
  vulnerable_code_not_present: AnalysisJustification.CodeNotPresent,
  vulnerable_code_not_in_execute_path: AnalysisJustification.CodeNotReachable,
  vulnerable_code_cannot_be_controlled_by_adversary: AnalysisJustification.RequiresEnvironment,
  inline_mitigations_already_exist: AnalysisJustification.ProtectedByMitigatingControl,
};

const SEVERITY: Record<string, Enums.Vulnerability.Severity> = {
  critical: Severity.Critical,
  high: Severity.High,
  medium: Severity.Medium,
  low: Severity.Low,
  none: Severity.None,
  unknown: Severity.Unknown,
};

const METHOD: Record<string, Enums.Vulnerability.RatingMethod> = {
  "2.0": RatingMethod.CVSSv2,
  "3.0": RatingMethod.CVSSv3,
  "3.1": RatingMethod.CVSSv31,
  "4.0": RatingMethod.CVSSv4,
};

const NOTES: Record<string, string> = {
  no_case: "Alerte sans dossier : pas encore analysée par l'équipe.",
  nouveau: "Dossier ouvert, pas encore analysé.",
  en_analyse: "Dossier en analyse.",
};

function component(p: VexProduct): Models.Component {
  let purl: PackageURL | undefined;
  if (p.purl) {
    try {
      purl = PackageURL.fromString(p.purl);
    } catch {
      purl = undefined;
    }
  }
  return new Models.Component(Enums.ComponentType.Library, p.name, {
    bomRef: `vigie:component:${p.key}`,
    ...(p.version && { version: p.version }),
    ...(purl && { purl: purl.toString() }),
    ...(p.cpe && { cpe: p.cpe }),
  });
}

function analysis(e: VexEntry): { analysis: Models.Vulnerability.Analysis; properties: Models.Property[] } {
  const a = e.analysis;
  const notes = e.notes?.trim() || null;
  const props: Models.Property[] = [];
  const withNotes = (text: string | null) => [text, notes].filter(Boolean).join(" ") || undefined;
  switch (a.kind) {
    case "under_investigation":
      return {
        analysis: new Models.Vulnerability.Analysis({ state: AnalysisState.InTriage, detail: withNotes(NOTES[a.reason]!) }),
        properties: props,
      };
    case "affected":
      return {
        analysis: new Models.Vulnerability.Analysis({
          state: AnalysisState.Exploitable,
          detail: withNotes("Remédiation en cours par l'équipe du projet."),
        }),
        properties: props,
      };
    case "fixed":
      return {
        analysis: new Models.Vulnerability.Analysis({
          state: AnalysisState.Resolved,
          response: new Enums.Vulnerability.AnalysisResponseRepository([AnalysisResponse.Update]),
          detail: withNotes(null),
        }),
        properties: props,
      };
    case "exception": {
      props.push(new Models.Property("vigie:exception:nature", a.nature), new Models.Property("vigie:exception:expires_on", a.expires_on));
      if (a.register) props.push(new Models.Property("vigie:exception:register", a.register));
      const response = a.nature === "MITIGATED" ? AnalysisResponse.WorkaroundAvailable : AnalysisResponse.WillNotFix;
      return {
        analysis: new Models.Vulnerability.Analysis({
          state: AnalysisState.Exploitable,
          response: new Enums.Vulnerability.AnalysisResponseRepository([response]),
          detail: withNotes(exceptionText(a)),
        }),
        properties: props,
      };
    }
    case "not_affected": {
      if (a.justification) props.push(new Models.Property("vigie:justification_vex", a.justification));
      if (a.justification === "component_not_present")
        return {
          analysis: new Models.Vulnerability.Analysis({ state: AnalysisState.FalsePositive, detail: withNotes(null) }),
          properties: props,
        };
      return {
        analysis: new Models.Vulnerability.Analysis({
          state: AnalysisState.NotAffected,
          ...(a.justification && { justification: CDX_JUSTIFICATION[a.justification] }),
          detail: withNotes(null),
        }),
        properties: props,
      };
    }
  }
}

function source(id: string): Models.Vulnerability.Source {
  const s = sourceOf(id);
  return new Models.Vulnerability.Source({ name: s.name, url: s.url });
}

function vulnerability(e: VexEntry, refs: Models.BomRef[]): Models.Vulnerability.Vulnerability {
  const { analysis: an, properties } = analysis(e);
  const ratings: Models.Vulnerability.Rating[] = [];
  if (e.cvss_score !== null || e.severity) {
    ratings.push(
      new Models.Vulnerability.Rating({
        ...(e.cvss_score !== null && { score: e.cvss_score }),
        ...(e.severity && SEVERITY[e.severity] && { severity: SEVERITY[e.severity] }),
        ...(e.cvss_version && METHOD[e.cvss_version] && { method: METHOD[e.cvss_version] }),
        ...(e.cvss_vector && { vector: e.cvss_vector }),
      }),
    );
  }
  return new Models.Vulnerability.Vulnerability({
    bomRef: `vigie:vulnerability:${e.cve_id}`,
    id: e.cve_id,
    source: source(e.cve_id),
    references: new Models.Vulnerability.ReferenceRepository(e.aliases.map((id) => new Models.Vulnerability.Reference(id, source(id)))),
    ratings: new Models.Vulnerability.RatingRepository(ratings),
    cwes: new Types.CweRepository(e.cwes.filter(Types.isCWE)),
    ...(e.description && { description: e.description }),
    ...(e.published && { published: new Date(e.published) }),
    created: new Date(e.first_seen),
    updated: new Date(e.updated),
    analysis: an,
    affects: new Models.Vulnerability.AffectRepository(refs.map((ref) => new Models.Vulnerability.Affect(ref))),
    properties: new Models.PropertyRepository(properties),
  });
}

/** The CycloneDX 1.6 JSON text (two-space indented, lists sorted). */
export function toCycloneDx(model: VexModel): string {
  const components = new Map(productsOf(model).map((p) => [p.key, component(p)]));
  const bom = new Models.Bom({
    serialNumber: `urn:uuid:${uuidOf(model.digest)}`,
    version: 1,
    metadata: new Models.Metadata({
      timestamp: new Date(model.timestamp),
      tools: new Models.Tools({
        components: new Models.ComponentRepository([
          new Models.Component(Enums.ComponentType.Application, "Vigie", { version: model.tool, bomRef: "vigie:tool" }),
        ]),
      }),
      authors: new Models.OrganizationalContactRepository([new Models.OrganizationalContact({ name: model.organization.name })]),
      supplier: new Models.OrganizationalEntity({ name: model.organization.name }),
      component: new Models.Component(Enums.ComponentType.Application, model.project.name, {
        bomRef: `vigie:project:${model.project.id}`,
      }),
    }),
    components: new Models.ComponentRepository(components.values()),
    vulnerabilities: new Models.Vulnerability.VulnerabilityRepository(
      model.entries.map((e) =>
        vulnerability(
          e,
          e.products.map((p) => components.get(p.key)!.bomRef),
        ),
      ),
    ),
  });
  const serializer = new Serialize.JsonSerializer(new Serialize.JSON.Normalize.Factory(Spec.Spec1dot6));
  return `${serializer.serialize(bom, { sortLists: true, space: 2 })}\n`;
}
