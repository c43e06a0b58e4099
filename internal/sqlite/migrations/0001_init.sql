-- Gatehouse schema, SQLite.
-- Identifiers are 16-byte UUID blobs; timestamps are Unix milliseconds.
-- Tenant tables carry org, the integer key of the organization, so that the
-- many event indexes stay small; every index of events starts with org.

CREATE TABLE settings (
  name  TEXT PRIMARY KEY,
  value BLOB NOT NULL
) STRICT;

CREATE TABLE organizations (
  seq        INTEGER PRIMARY KEY,
  id         BLOB NOT NULL UNIQUE,
  name       TEXT NOT NULL,
  created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE api_keys (
  id           BLOB PRIMARY KEY,
  org          INTEGER NOT NULL REFERENCES organizations(seq),
  name         TEXT NOT NULL,
  prefix       TEXT NOT NULL,
  hash         BLOB NOT NULL UNIQUE,
  scopes       TEXT NOT NULL,
  rate_count   INTEGER,
  rate_per_ms  INTEGER,
  created_at   INTEGER NOT NULL,
  expires_at   INTEGER,
  revoked_at   INTEGER,
  last_used_at INTEGER
) STRICT;
CREATE INDEX api_keys_by_org ON api_keys (org, created_at DESC);

CREATE TABLE locations (
  id         BLOB PRIMARY KEY,
  org        INTEGER NOT NULL REFERENCES organizations(seq),
  name       TEXT NOT NULL,
  created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX locations_by_name ON locations (org, name, id);

CREATE TABLE access_points (
  id          BLOB PRIMARY KEY,
  org         INTEGER NOT NULL REFERENCES organizations(seq),
  location_id BLOB NOT NULL REFERENCES locations(id),
  name        TEXT NOT NULL,
  created_at  INTEGER NOT NULL
) STRICT;
CREATE INDEX access_points_by_location ON access_points (location_id, name, id);

CREATE TABLE users (
  id            BLOB PRIMARY KEY,
  org           INTEGER NOT NULL REFERENCES organizations(seq),
  email         TEXT NOT NULL UNIQUE, -- stored lower-cased
  name          TEXT NOT NULL,
  password_hash TEXT NOT NULL,
  created_at    INTEGER NOT NULL
) STRICT;

CREATE TABLE commands (
  org              INTEGER NOT NULL REFERENCES organizations(seq),
  id               BLOB NOT NULL,
  access_point_id  BLOB NOT NULL,
  scope            TEXT NOT NULL,
  status           TEXT NOT NULL,
  server_job_id    TEXT,
  platform_user_id TEXT,
  issued_at        INTEGER NOT NULL,
  status_at        INTEGER NOT NULL, -- occurredAt of the event that set status
  PRIMARY KEY (org, id)
) STRICT, WITHOUT ROWID;

CREATE TABLE events (
  seq               INTEGER PRIMARY KEY, -- links events_search rows
  org               INTEGER NOT NULL REFERENCES organizations(seq),
  id                BLOB NOT NULL,
  type              TEXT NOT NULL,
  occurred_at       INTEGER NOT NULL,
  received_at       INTEGER NOT NULL,
  allowed           TEXT,
  reason            TEXT,
  platform_user_id  TEXT,
  server_job_id     TEXT,
  scope             TEXT,
  location_id       BLOB NOT NULL,
  location_name     TEXT NOT NULL,
  access_point_id   BLOB NOT NULL,
  access_point_name TEXT NOT NULL,
  requested_by      BLOB,
  command_id        BLOB
) STRICT;

-- Ids are unique per organization: one organization can neither see nor
-- block another's ids.
CREATE UNIQUE INDEX events_by_id ON events (org, id);
-- One index per filter, each ending in the keyset order, so that a filtered
-- page is a range scan that stops after limit rows.
CREATE INDEX events_by_time         ON events (org, occurred_at DESC, id DESC);
CREATE INDEX events_by_access_point ON events (org, access_point_id, occurred_at DESC, id DESC);
CREATE INDEX events_by_location     ON events (org, location_id, occurred_at DESC, id DESC);
CREATE INDEX events_by_type         ON events (org, type, occurred_at DESC, id DESC);
CREATE INDEX events_by_allowed      ON events (org, allowed, occurred_at DESC, id DESC);
CREATE INDEX events_by_user         ON events (org, platform_user_id, occurred_at DESC, id DESC);
CREATE INDEX events_by_reason       ON events (org, reason, occurred_at DESC, id DESC);
CREATE INDEX events_by_scope        ON events (org, scope, occurred_at DESC, id DESC) WHERE scope IS NOT NULL;

-- Substring search for q: a contentless trigram index over the searched
-- fields of each event, joined to events by rowid = events.seq.
CREATE VIRTUAL TABLE events_search USING fts5 (text, content = '', tokenize = 'trigram');
