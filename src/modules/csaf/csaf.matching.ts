import type { Db } from "../../platform/db/client.js";
import { palier } from "../../matching/priority.js";
import { VEX_JUSTIFICATIONS } from "../../platform/db/schema/index.js";
import { severityFromScore } from "../../feeds/cvss.js";
import { alertsRead } from "../alerts/alerts.read.js";
import { casesRead } from "../cases/cases.read.js";
import type { Executor } from "../../platform/db/client.js";
import type { ProposalIn } from "../vex/vex.repository.js";
import type { CsafVulnerability } from "./csaf.document.js";
import { type CsafDecision, type CsafItem, decide } from "./csaf.match.js";
import { type AdvisoryRow, csafRepository as repo, type CsafHit } from "./csaf.repository.js";

/**
 * The advisories just kept, against the organization's stack items (docs/adr/0038): a vendor's
 * known_affected for an item raises its alert (once per project and CVE, with the cve.new_match
 * event, « selon l'avis de l'éditeur » in its source, the vendor's fix and interim measures in its
 * correspondance); fixed/first_fixed bound it (no alert); a known_not_affected for the item's exact
 * product becomes a VEX proposal on the project's case (the supplier-VEX flow, never applied by
 * itself) when the project has an alert or a case for the CVE.
 */

/** A measure in the shape of the CVE's mesures_provisoires (cves.presenter.ts MesureProvisoire). */
function measuresOf(d: CsafDecision, a: AdvisoryRow) {
  return d.measures.map((m) => ({
    source: a.publisher,
    reference: a.tracking_id,
    categorie: "contournement",
    nature: m.category,
    date: m.date,
    url: m.url ?? a.url,
    texte: m.details,
    lien_seulement: false,
    produits: d.products.map((p) => p.name),
  }));
}

/** The vulnerability's severity for these products: the CVSS the vendor gives (v3 first), highest score. */
function vendorSeverity(v: CsafVulnerability, productIds: Set<string>): { severity: string; score: number | null } {
  const scores = v.scores.filter((s) => s.product_ids.some((id) => productIds.has(id)) || !s.product_ids.length);
  const best = [...scores].sort(
    (a, b) => (b.version.startsWith("3") ? 1 : 0) - (a.version.startsWith("3") ? 1 : 0) || b.base_score - a.base_score,
  )[0];
  if (!best) return { severity: "unknown", score: null };
  return { severity: best.base_severity ?? severityFromScore(best.base_score), score: best.base_score };
}

function sourceLine(item: CsafItem, d: CsafDecision, a: AdvisoryRow, version: string | null): string {
  const fix = d.fixed_versions.length ? ` ; corrigé en ${d.fixed_versions.join(", ")}` : "";
  const what = version ? `version ${version} concernée` : "produit concerné";
  return `${item.item_type} ${item.value} : ${what} selon l'avis de l'éditeur ${a.publisher} (${a.tracking_id} version ${a.version}, ${d.status})${fix}`;
}

/** Writes VEX proposals (vex.repository.ts insertMany): received, as another module's repository is (app.ts). */
export interface ProposalWriter {
  insertMany(ex: Executor, orgId: string, projectId: string, rows: ProposalIn[]): Promise<string[]>;
}

export async function matchAdvisories(
  db: Db,
  vexProposals: ProposalWriter,
  orgId: string,
  advisoryIds: string[],
): Promise<{ alerts: number; proposals: number }> {
  const [advisories, items] = await Promise.all([repo.advisoriesByIds(db, advisoryIds), repo.items(db, orgId)]);
  if (!items.length) return { alerts: 0, proposals: 0 };
  const cveIds = [...new Set(advisories.flatMap((a) => a.cves))];
  const facts = await repo.cveFacts(db, cveIds);
  const hits = new Map<string, CsafHit>();
  const proposals = new Map<string, (ProposalIn & { project_id: string })[]>();
  for (const a of advisories) {
    for (const v of a.vulnerabilities) {
      if (!v.cve) continue;
      for (const item of items) {
        const d = decide(item, v, a.products);
        if (!d) continue;
        if (d.verdict === "affected") {
          const key = `${item.project_id} ${v.cve}`;
          if (hits.has(key)) continue;
          const ids = new Set(d.products.map((p) => p.product_id));
          const known = facts.get(v.cve);
          const vendor = vendorSeverity(v, ids);
          const severity = known && known.severity !== "unknown" ? known.severity : vendor.severity;
          const score = known?.cvss_score ?? vendor.score;
          const version = item.match_version;
          const p0 = d.products[0]!;
          hits.set(key, {
            org_id: orgId,
            project_id: item.project_id,
            item_id: item.id,
            cve_id: v.cve,
            severity,
            cvss_score: score,
            palier: palier({ severity, epss: known?.epss ?? null, isKev: known?.is_kev ?? false, hasPoc: known?.has_poc ?? false }),
            vendor: p0.vendor,
            product: p0.product_name ?? p0.name,
            source: sourceLine(item, d, a, version),
            match: {
              item_id: item.id,
              item_type: item.item_type,
              value: item.value,
              rule: "vendor_advisory",
              version,
              range: d.fixed_versions.length ? `< ${d.fixed_versions[0]} (corrigé selon l'éditeur)` : null,
              origin: "csaf",
              vendor: p0.vendor,
              product: p0.product_name ?? p0.name,
              avis_editeur: {
                fournisseur_id: a.provider_id,
                avis_id: a.id,
                tracking_id: a.tracking_id,
                version_avis: a.version,
                editeur: a.publisher,
                url: a.url,
                statut: d.status,
                par: d.via,
                produits: d.products.map((p) => p.name),
                versions_corrigees: d.fixed_versions,
                correctifs: d.vendor_fix.map((r) => ({ details: r.details, url: r.url, date: r.date })),
                mesures_provisoires: measuresOf(d, a),
                autres_remediations: d.other_remediations.map((r) => ({ categorie: r.category, details: r.details })),
              },
            },
          });
        } else if (d.verdict === "not_affected") {
          const list = proposals.get(item.project_id) ?? [];
          list.push({
            project_id: item.project_id,
            cve_id: v.cve,
            vex_status: "known_not_affected",
            justification: (VEX_JUSTIFICATIONS as readonly string[]).includes(d.justification ?? "")
              ? (d.justification as ProposalIn["justification"])
              : null,
            impact_statement: d.impact,
            products: [item.value],
            source_format: "csaf",
            source_document: a.tracking_id,
            source_author: a.publisher,
            source_timestamp: new Date(a.current_release_date).toISOString(),
          });
          proposals.set(item.project_id, list);
        }
      }
    }
  }
  return db.transaction(async (tx) => {
    const alerts = await repo.raise(tx, [...hits.values()]);
    let proposed = 0;
    for (const [projectId, rows] of proposals) {
      const ids = [...new Set(rows.map((r) => r.cve_id))];
      const [alerted, cased] = await Promise.all([alertsRead.alertedCves(tx, projectId, ids), casesRead.statuses(tx, projectId, ids)]);
      // One proposal per (CVE, document): the items of the project it names, together.
      const byCve = new Map<string, ProposalIn>();
      for (const { project_id: _p, ...r } of rows) {
        if (!alerted.has(r.cve_id) && !cased.has(r.cve_id)) continue;
        const prev = byCve.get(`${r.cve_id} ${r.source_document}`);
        if (prev) prev.products = [...new Set([...prev.products, ...r.products])];
        else byCve.set(`${r.cve_id} ${r.source_document}`, r);
      }
      proposed += (await vexProposals.insertMany(tx, orgId, projectId, [...byCve.values()])).length;
    }
    return { alerts, proposals: proposed };
  });
}
