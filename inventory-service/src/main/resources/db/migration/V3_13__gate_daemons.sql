-- Each gate's report of the repo daemons it verified (GateStatus.daemons, issue 13): a JSON array
-- of {repoName, repoGuid, state, detail, checkedAt}; '[]' for gates that report none.
ALTER TABLE gate ADD COLUMN daemons_json text NOT NULL DEFAULT '[]';
