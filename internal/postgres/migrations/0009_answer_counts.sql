-- The answers of a command's targets are counted in the shards of
-- command_delivery_counts, as its first deliveries are: a thousand servers
-- acknowledging one UNIVERSE unlock add to sixteen rows instead of
-- queueing on the command's row through each commit. The command settles
-- after the answer commits (gatehouse.Settle on the summed counts).
ALTER TABLE command_delivery_counts
  ADD COLUMN executed integer NOT NULL DEFAULT 0, -- target rows answered EXECUTED
  ADD COLUMN failed   integer NOT NULL DEFAULT 0; -- target rows answered FAILED

INSERT INTO command_delivery_counts AS n (org, command_id, shard, delivered, joined, executed, failed)
  SELECT org, id, 0, 0, 0, targets_executed, targets_failed FROM commands
  WHERE issued AND targets_executed + targets_failed > 0
ON CONFLICT (org, command_id, shard) DO UPDATE SET executed = n.executed + excluded.executed, failed = n.failed + excluded.failed;

ALTER TABLE commands DROP COLUMN targets_executed, DROP COLUMN targets_failed;
