-- Gatehouse schema, PostgreSQL.
-- Tenant tables carry org, the bigint key of the organization, so the many
-- event indexes stay small; every events index starts with org and ends in
-- the keyset order (occurred_at DESC, id DESC), so a filtered page is a
-- range scan that stops after limit rows.

CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE settings (
  name  text PRIMARY KEY,
  value bytea NOT NULL
);

CREATE TABLE organizations (
  seq        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id         uuid NOT NULL UNIQUE,
  name       text NOT NULL,
  created_at timestamptz NOT NULL
);

CREATE TABLE api_keys (
  id           uuid PRIMARY KEY,
  org          bigint NOT NULL REFERENCES organizations (seq),
  name         text NOT NULL,
  prefix       text NOT NULL,
  hash         bytea NOT NULL UNIQUE,
  scopes       text NOT NULL,
  rate_count   integer,
  rate_per_ms  bigint,
  created_at   timestamptz NOT NULL,
  expires_at   timestamptz,
  revoked_at   timestamptz,
  last_used_at timestamptz
);
CREATE INDEX api_keys_by_org ON api_keys (org, created_at DESC);

CREATE TABLE locations (
  id         uuid PRIMARY KEY,
  org        bigint NOT NULL REFERENCES organizations (seq),
  name       text NOT NULL,
  created_at timestamptz NOT NULL
);
-- COLLATE "C": names order by bytes, as on SQLite, whatever the database locale.
CREATE INDEX locations_by_name ON locations (org, name COLLATE "C", id);

CREATE TABLE access_points (
  id          uuid PRIMARY KEY,
  org         bigint NOT NULL REFERENCES organizations (seq),
  location_id uuid NOT NULL REFERENCES locations (id),
  name        text NOT NULL,
  created_at  timestamptz NOT NULL
);
CREATE INDEX access_points_by_location ON access_points (location_id, name COLLATE "C", id);

CREATE TABLE users (
  id            uuid PRIMARY KEY,
  org           bigint NOT NULL REFERENCES organizations (seq),
  email         text NOT NULL UNIQUE, -- stored lower-cased
  name          text NOT NULL,
  password_hash text NOT NULL,
  created_at    timestamptz NOT NULL
);

CREATE TABLE commands (
  org              bigint NOT NULL REFERENCES organizations (seq),
  id               uuid NOT NULL,
  access_point_id  uuid NOT NULL,
  scope            text NOT NULL,
  status           text NOT NULL,
  server_job_id    text,
  platform_user_id text,
  issued_at        timestamptz NOT NULL,
  status_at        timestamptz NOT NULL, -- occurredAt of the event that set status
  PRIMARY KEY (org, id)
);

CREATE TABLE events (
  seq               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  org               bigint NOT NULL REFERENCES organizations (seq),
  id                uuid NOT NULL,
  type              text NOT NULL,
  occurred_at       timestamptz NOT NULL,
  received_at       timestamptz NOT NULL,
  allowed           text,
  reason            text,
  platform_user_id  text,
  server_job_id     text,
  scope             text,
  location_id       uuid NOT NULL,
  location_name     text NOT NULL,
  access_point_id   uuid NOT NULL,
  access_point_name text NOT NULL,
  requested_by      uuid,
  command_id        uuid,
  -- lower(SearchText): what q matches with LIKE, through the trigram index
  search            text NOT NULL
);

-- Ids are unique per organization: one organization can neither see nor
-- block another's ids.
CREATE UNIQUE INDEX events_by_id ON events (org, id);
CREATE INDEX events_by_time         ON events (org, occurred_at DESC, id DESC);
CREATE INDEX events_by_access_point ON events (org, access_point_id, occurred_at DESC, id DESC);
CREATE INDEX events_by_location     ON events (org, location_id, occurred_at DESC, id DESC);
CREATE INDEX events_by_type         ON events (org, type, occurred_at DESC, id DESC);
CREATE INDEX events_by_allowed      ON events (org, allowed, occurred_at DESC, id DESC);
CREATE INDEX events_by_user         ON events (org, platform_user_id, occurred_at DESC, id DESC);
CREATE INDEX events_by_reason       ON events (org, reason, occurred_at DESC, id DESC);
CREATE INDEX events_by_scope        ON events (org, scope, occurred_at DESC, id DESC) WHERE scope IS NOT NULL;
CREATE INDEX events_search          ON events USING gin (search gin_trgm_ops);
