-- Privacy (docs/api.md, "Privacy: erasure and
-- retention").

-- How long an organization's events are kept, by occurredAt.
ALTER TABLE organizations ADD COLUMN retention_days integer NOT NULL DEFAULT 400;

-- The platform's right-to-erasure webhook: one per organization, found by
-- the hash of its opaque token; the token and the HMAC secret are sealed.
CREATE TABLE erasure_integrations (
  org           bigint PRIMARY KEY REFERENCES organizations (seq),
  token_hash    bytea NOT NULL UNIQUE,
  sealed_token  bytea NOT NULL,
  sealed_secret bytea NOT NULL,
  created_at    timestamptz NOT NULL
);

-- Every request the webhook received for an organization, and what it did.
CREATE TABLE erasure_requests (
  seq             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  org             bigint NOT NULL REFERENCES organizations (seq),
  id              uuid NOT NULL,
  notification_id text NOT NULL,
  received_at     timestamptz NOT NULL,
  outcome         text NOT NULL, -- gatehouse.ErasureOutcome
  detail          text NOT NULL,
  user_hash       text NOT NULL,
  events          bigint NOT NULL,
  commands        bigint NOT NULL
);
CREATE INDEX erasure_requests_org ON erasure_requests (org, seq);
-- A notification is erased once: a replay of it changes nothing.
CREATE UNIQUE INDEX erasure_requests_done ON erasure_requests (org, notification_id) WHERE outcome = 'erased';


-- Erasure finds a player's commands (PLAYER unlocks).
CREATE INDEX commands_by_player ON commands (org, platform_user_id) WHERE platform_user_id IS NOT NULL;
