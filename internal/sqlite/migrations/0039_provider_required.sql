-- An organization may require its members to sign in through the OpenID
-- provider (docs/security.md, "Single sign-on"): their passwords then
-- sign nobody in.
ALTER TABLE organizations ADD COLUMN provider_required INTEGER NOT NULL DEFAULT 0;
