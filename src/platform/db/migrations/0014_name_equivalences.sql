-- Names that designate the same vendor or product, learned from the data (src/matching/equivalences.ts).
-- One row per piece of evidence: a CVE whose record names a product both ways (a CNA entry and its
-- CPEs; a CNA's one product and the one CPE product of the CISA ADP or NVD; an OSV advisory's one
-- package and its CVE's one CPE product). Rewritten for the CVEs of each import batch.
CREATE TABLE "name_evidence" (
	"cve_id" text NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"equivalent" text NOT NULL,
	"via" text NOT NULL,
	CONSTRAINT "name_evidence_pk" PRIMARY KEY("cve_id","kind","name","equivalent","via"),
	CONSTRAINT "name_evidence_kind_valid" CHECK ("kind" in ('vendor', 'product'))
);--> statement-breakpoint
-- The recount of a pair after a batch reads its evidence by pair.
CREATE INDEX "name_evidence_pair_idx" ON "name_evidence" USING btree ("kind","name","equivalent");--> statement-breakpoint
-- The equivalences in force (evidence from enough distinct CVEs), both directions stored: the
-- matcher probes (kind, name) from either side (a changed CVE's names, a new item's name).
CREATE TABLE "name_equivalences" (
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"equivalent" text NOT NULL,
	"evidence" integer NOT NULL,
	CONSTRAINT "name_equivalences_pk" PRIMARY KEY("kind","name","equivalent")
);
