-- A server that applied an unlock of a universe and answered EXECUTED
-- must still be told when the unlock is cancelled: its delivery row is
-- answered, so the rows of unanswered deliveries do not find it.
-- CancelCommand marks the rows of the command; a partial index keeps
-- them (few: only the deliveries of cancelled commands) for the server's
-- sync.
ALTER TABLE command_deliveries ADD COLUMN relock boolean NOT NULL DEFAULT false;
CREATE INDEX command_deliveries_relock ON command_deliveries (org, job_id) WHERE relock;
