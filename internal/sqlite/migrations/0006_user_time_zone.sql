-- The zone a dashboard user reads times in: '' for the browser's own,
-- 'UTC' or an IANA name. Numbered 0006: 0005 is taken by roles.
ALTER TABLE users ADD COLUMN time_zone TEXT NOT NULL DEFAULT '';
