import type { Db } from "../../platform/db/client.js";
import { NotFound } from "../../platform/errors.js";
import { cvesRepository as repo, type CveAffectedRow, type CveListRow, type CveRow } from "./cves.repository.js";
import type { CveListQueryT } from "./cves.schemas.js";

export const CVE_NOT_FOUND = "CVE introuvable";

/** The merged CVE records: search and detail. Public data, the same for every tenant. */
export class CvesService {
  constructor(private readonly db: Db) {}

  list(q: CveListQueryT): Promise<{ rows: CveListRow[]; total: number }> {
    return repo.list(this.db, q);
  }

  /** A CVE by id, or by an alias (GHSA-…, GO-…, PYSEC-…, RUSTSEC-…, CERTFR-…); 404 "CVE introuvable". */
  async get(idOrAlias: string): Promise<{ cve: CveRow; affected: CveAffectedRow[] }> {
    const id = idOrAlias.trim().toUpperCase();
    let cve = /^CVE-\d{4}-\d{4,}$/.test(id) ? await repo.get(this.db, id) : undefined;
    if (!cve) {
      const aliasOf = await repo.cveOfAlias(this.db, idOrAlias.trim());
      if (aliasOf) cve = await repo.get(this.db, aliasOf);
    }
    if (!cve) throw new NotFound(CVE_NOT_FOUND);
    return { cve, affected: await repo.affected(this.db, cve.cveId) };
  }
}
