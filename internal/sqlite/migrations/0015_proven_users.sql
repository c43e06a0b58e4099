-- Whether a dashboard user has proven membership of the organization:
-- signed in to it once with the password set for it, or accepted its
-- invitation while signed in elsewhere as the same email. Until then the
-- user is an invitation: it takes no part in the sign-in of an email
-- proven anywhere and receives no failed sign-ins (docs/security.md,
-- "Look-alike users").
ALTER TABLE users ADD COLUMN proven INTEGER NOT NULL DEFAULT 0;

-- Users who ever signed in (a sign-in entry or a session), and those
-- added before the audit log recorded additions, are proven; a user an
-- admin added who never signed in stays an invitation.
UPDATE users SET proven = 1
WHERE id IN (SELECT target_id FROM audit_log WHERE action = 'user.signed_in' AND target_id IS NOT NULL)
   OR id IN (SELECT user_id FROM sessions)
   OR id NOT IN (SELECT target_id FROM audit_log WHERE action = 'user.added' AND target_id IS NOT NULL);
