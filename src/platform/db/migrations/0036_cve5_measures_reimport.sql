-- CVE 5 workarounds and solutions are now interim measures (parser version 4). A database that
-- imported the bundled snapshot gets them at its next start: its cve5 source is forgotten by the
-- snapshot's progress record, so the snapshot's CVE List files are imported again (idempotent; a
-- record the sync brought since is newer and kept). Data only: no table changes.
DELETE FROM "snapshot_progress" WHERE "source" = 'cve5';
