-- A first EPSS import rewrote each CVE's facts row twice: once for its score (trigger on
-- epss_current), once for its first score date (trigger on epss_scores): 360,000 scores, 720,000
-- row versions of cve_facts with its indexes, the EPSS import 2 to 3 times slower (ADR 0020).
-- The current score's trigger now sets the first date too (the score's date is in the history by
-- the end of the same transaction: upsertEpss writes epss_current first), so the history's trigger
-- writes only when an older file moves the first date back.
CREATE OR REPLACE FUNCTION vigie_cve_facts_epss() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE cve_facts f SET epss = n.epss, epss_first = least(f.epss_first, n.score_date)
  FROM changed n
  WHERE f.cve_id = n.cve_id AND (f.epss IS DISTINCT FROM n.epss OR f.epss_first IS NULL OR n.score_date < f.epss_first);
  RETURN NULL;
END $$;
