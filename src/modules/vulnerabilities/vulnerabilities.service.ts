import type { Db } from "../../platform/db/client.js";
import { NotFound } from "../../platform/errors.js";
import { NOT_FOUND } from "../../platform/messages.js";
import { vulnerabilitiesRepository as repo, type PublicVulnWithSignals } from "./vulnerabilities.repository.js";
import type { VulnListQuery } from "./vulnerabilities.schemas.js";

/** Public advisories (GHSA, GO, PYSEC, RUSTSEC, CERT-FR). */
export class VulnerabilitiesService {
  constructor(private readonly db: Db) {}

  list(q: VulnListQuery) {
    return repo.list(this.db, q);
  }

  async get(id: string): Promise<PublicVulnWithSignals> {
    const row = await repo.get(this.db, id);
    if (!row) throw new NotFound(NOT_FOUND.vulnerability);
    return row;
  }
}
