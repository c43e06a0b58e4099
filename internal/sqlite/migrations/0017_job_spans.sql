-- The span of time each server job id's events occupy (sqlstore.Span),
-- in whole hours: [from_at, to_at) holds every event of the job. Job ids
-- have no index on events (one cost a third of the insert rate), but a
-- server lives hours: a q found in a job id reads only its span, through
-- events_by_time. Written at ingest when a batch's events fall outside
-- the span this instance knows, about once an hour for a live server.
CREATE TABLE job_spans (
  org     INTEGER NOT NULL REFERENCES organizations(seq),
  job     TEXT NOT NULL,
  from_at INTEGER NOT NULL, -- ms, a whole hour
  to_at   INTEGER NOT NULL, -- ms, a whole hour, exclusive
  PRIMARY KEY (org, job)
) STRICT, WITHOUT ROWID;

-- The spans of the events stored so far, in one pass over the events.
INSERT INTO job_spans (org, job, from_at, to_at)
SELECT org, server_job_id, min(occurred_at) / 3600000 * 3600000, max(occurred_at) / 3600000 * 3600000 + 3600000
FROM events WHERE server_job_id IS NOT NULL AND server_job_id <> '' AND org <> 0
GROUP BY org, server_job_id;
