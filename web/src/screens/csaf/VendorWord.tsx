import { useWords } from "../../i18n/i18n";
import { csafWords } from "./words";

/** `correspondance.avis_editeur` of an alert a vendor's CSAF advisory raised (src/modules/csaf/csaf.matching.ts). */
export interface AvisEditeur {
  tracking_id?: string;
  version_avis?: string;
  editeur?: string;
  url?: string;
  statut?: string | null;
  versions_corrigees?: string[];
  correctifs?: { details?: string; url?: string | null }[];
  mesures_provisoires?: { texte?: string; url?: string | null; nature?: string }[];
}

/** Only http(s) links are followed (a document's URL is the vendor's text). */
const safe = (url: string | null | undefined) => (url && /^https?:\/\//i.test(url) ? url : null);

/** The vendor's word on an alert: who says what in which version, the fix and its URL, the interim measures. */
export function VendorWord({ avis, matching }: { avis: AvisEditeur; matching: boolean }) {
  const w = useWords(csafWords);
  const status = avis.statut ? (w.statuses[avis.statut] ?? avis.statut) : w.noLongerNamed;
  const fixes = (avis.correctifs ?? []).filter((c) => c.details || c.url);
  const measures = (avis.mesures_provisoires ?? []).filter((m) => m.texte);
  return (
    <div className="vendor-word">
      {!matching && <p className="notice">{w.noLongerMatches}</p>}
      <p>{w.vendorSays(avis.editeur ?? "", avis.tracking_id ?? "", avis.version_avis ?? "", status)}</p>
      {avis.versions_corrigees?.length ? <p>{w.fixedIn(avis.versions_corrigees.join(", "))}</p> : null}
      {fixes.length > 0 && (
        <>
          <p className="sub">{w.vendorFix}</p>
          <ul className="plain-list">
            {fixes.map((f, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the vendor's list, in its order, never reordered.
              <li key={i}>
                {f.details}
                {safe(f.url) && (
                  <>
                    {" "}
                    <a href={safe(f.url)!} className="break">
                      {f.url}
                    </a>
                  </>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
      {measures.length > 0 && (
        <details>
          <summary>
            {w.interim} ({measures.length})
          </summary>
          <ul className="plain-list">
            {measures.map((m, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the vendor's list, in its order, never reordered.
              <li key={i}>
                {m.texte}
                {safe(m.url) && (
                  <>
                    {" "}
                    <a href={safe(m.url)!} className="break">
                      {m.url}
                    </a>
                  </>
                )}
              </li>
            ))}
          </ul>
        </details>
      )}
      {safe(avis.url) && (
        <p>
          <a href={safe(avis.url)!}>
            {w.document} {avis.tracking_id}
          </a>
        </p>
      )}
    </div>
  );
}
