import { sql } from "drizzle-orm";
import type { Db } from "../../platform/db/client.js";
import { insertEvents } from "../../events/outbox.js";
import { insertAlerts } from "../../matching/raise.js";
import { pgArray, rowsOf } from "../../platform/db/sql.js";
import { alertsVersion, bumpVersions } from "../../platform/db/versions.js";
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
 *
 * A revised advisory (same tracking id, higher version: csaf.sync.ts keeps the newest) is decided
 * again: an alert it raised follows it (reconcile). The vendor no longer says known_affected for
 * the project's items (fixed, known_not_affected, or the product's range no longer holds the
 * version): the alert is kept and marked as the matcher marks an alert whose CVE record stops
 * matching — matching=false, cve.updated `correspondance: true → false` — and its correspondance
 * says the vendor's new word (`avis_editeur.version_avis`, `statut`); still known_affected: its
 * correspondance follows the new version; known_affected again: matching turns back. Every change
 * of version writes cve.updated `avis_editeur: {from, to}`. A product newly known_affected raises
 * its alert as any other.
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
  /** Per advisory, the (project, CVE) it says known_affected, and the vendor's status for every pair it decides. */
  const affectedBy = new Map<string, Map<string, CsafHit>>();
  const statusBy = new Map<string, Map<string, string>>();
  const proposals = new Map<string, (ProposalIn & { project_id: string })[]>();
  for (const a of advisories) {
    for (const v of a.vulnerabilities) {
      if (!v.cve) continue;
      for (const item of items) {
        const d = decide(item, v, a.products);
        if (!d) continue;
        const key = `${item.project_id} ${v.cve}`;
        const said = statusBy.get(a.id) ?? new Map<string, string>();
        // An item affected wins over another item of the project the vendor says fixed.
        if (d.verdict === "affected" || !said.has(key)) said.set(key, d.status);
        statusBy.set(a.id, said);
        if (d.verdict === "affected") {
          const mine = affectedBy.get(a.id) ?? new Map<string, CsafHit>();
          affectedBy.set(a.id, mine);
          if (mine.has(key)) continue;
          const ids = new Set(d.products.map((p) => p.product_id));
          const known = facts.get(v.cve);
          const vendor = vendorSeverity(v, ids);
          const severity = known && known.severity !== "unknown" ? known.severity : vendor.severity;
          const score = known?.cvss_score ?? vendor.score;
          const version = item.match_version;
          const p0 = d.products[0]!;
          const hit: CsafHit = {
            org_id: orgId,
            project_id: item.project_id,
            item_id: item.id,
            cve_id: v.cve,
            severity,
            cvss_score: score,
            is_kev: known?.is_kev ?? false,
            has_poc: known?.has_poc ?? false,
            epss: known?.epss ?? null,
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
          };
          mine.set(key, hit);
          if (!hits.has(key)) hits.set(key, hit);
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
  const projectIds = [...new Set(items.map((i) => i.project_id))];
  return db.transaction(async (tx) => {
    await reconcile(tx, projectIds, advisories, affectedBy, statusBy, hits);
    let alerts = 0;
    for (const n of (await insertAlerts(tx, [...hits.values()])).values()) alerts += n;
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

interface OwnedAlert {
  id: string;
  project_id: string;
  cve_id: string;
  matching: boolean;
  avis_id: string;
  version: string | null;
  statut: string | null;
}

/**
 * The alerts these advisories raised, after the advisories were decided again (a revision, or the
 * same version at the next sync: then nothing changes). See the module's comment.
 */
async function reconcile(
  tx: Executor,
  projectIds: string[],
  advisories: AdvisoryRow[],
  affectedBy: Map<string, Map<string, CsafHit>>,
  statusBy: Map<string, Map<string, string>>,
  anyHit: Map<string, CsafHit>,
): Promise<void> {
  if (!advisories.length || !projectIds.length) return;
  const byId = new Map(advisories.map((a) => [a.id, a]));
  const owned = await rowsOf<OwnedAlert>(
    tx,
    sql`select a.id, a.project_id, a.cve_id, a.matching, a.match->'avis_editeur'->>'avis_id' as avis_id,
        a.match->'avis_editeur'->>'version_avis' as version, a.match->'avis_editeur'->>'statut' as statut
      from alerts a where a.project_id = any(${pgArray(projectIds)}::uuid[]) and a.match->>'origin' = 'csaf'
        and a.match->'avis_editeur'->>'avis_id' = any(${pgArray([...byId.keys()])}::text[])
      order by a.project_id, a.cve_id`,
  );
  const updates: { id: string; matching: boolean; match: object; source: string; changes: Record<string, unknown> }[] = [];
  for (const o of owned) {
    const a = byId.get(o.avis_id)!;
    const key = `${o.project_id} ${o.cve_id}`;
    // Another advisory of the batch that still says the item affected takes the alert over.
    const own = affectedBy.get(a.id)?.get(key);
    const hit = own ?? anyHit.get(key);
    const statut = own ? "known_affected" : (statusBy.get(a.id)?.get(key) ?? null);
    if (o.version === a.version && o.matching === !!hit) continue;
    const changes: Record<string, unknown> = {};
    if (o.matching !== !!hit) changes.correspondance = { from: o.matching, to: !!hit };
    if (o.version !== a.version)
      changes.avis_editeur = {
        from: { tracking_id: a.tracking_id, version: o.version, statut: o.statut },
        to: { tracking_id: a.tracking_id, version: a.version, statut },
      };
    if (hit) {
      updates.push({ id: o.id, matching: true, match: hit.match, source: hit.source, changes });
      continue;
    }
    const said = statut ? `dit ${statut}` : "ne nomme plus le produit à cette version";
    updates.push({
      id: o.id,
      matching: false,
      match: { version_avis: a.version, statut, revision: `version ${a.version} : ${said}` },
      source: `plus concerné selon l'avis de l'éditeur ${a.publisher} (${a.tracking_id} version ${a.version}, ${statut ?? "produit non nommé à cette version"})`,
      changes,
    });
  }
  if (!updates.length) return;
  // A hit replaces the correspondance; an unmatched alert keeps its own, the vendor's new word merged into avis_editeur.
  const rows = await rowsOf<{ project_id: string }>(
    tx,
    sql`with u as (select * from json_to_recordset(${JSON.stringify(updates)}::json) as u(id uuid, matching boolean, match jsonb, source text, changes jsonb)),
      upd as (update alerts a set matching = u.matching, updated_at = now(),
          match = case when u.matching then u.match else jsonb_set(a.match, '{avis_editeur}', (a.match->'avis_editeur') || u.match) end,
          source = case when u.matching then u.source else split_part(a.source, ' : ', 1) || ' : ' || u.source end
        from u where a.id = u.id returning a.id, a.org_id, a.project_id, a.cve_id, u.changes),
      ev as (${insertEvents("cve.updated", {
        org_id: sql`org_id`,
        project_id: sql`project_id`,
        cve_id: sql`cve_id`,
        alert_id: sql`id`,
        payload: { alert_id: sql`id`, cve_id: sql`cve_id`, changes: sql`changes` },
        from: sql`from upd order by project_id, cve_id`,
        returning: sql`project_id`,
      })})
    select distinct project_id from upd`,
  );
  await bumpVersions(
    tx,
    rows.map((r) => alertsVersion(r.project_id)),
  );
}
