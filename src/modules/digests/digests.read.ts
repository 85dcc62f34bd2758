import { sql, type SQL } from "drizzle-orm";

/** The read model other modules use for digests (ADR 0017). */
export const digestsRead = {
  /** A subquery: the alerts a digest listed (the alert list's `resume` filter, the digest's inbox link). */
  alertIds(digestId: string): SQL {
    return sql`select i.alert_id from digest_items i where i.digest_id = ${digestId} and i.alert_id is not null`;
  },
};
