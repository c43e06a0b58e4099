-- How many players each server's row lists: an organization's player
-- rows are summed over this index, one entry per server, when a server
-- registers or its list grows (Heartbeat caps both per organization).
ALTER TABLE game_servers ADD COLUMN player_count integer NOT NULL DEFAULT 0;
UPDATE game_servers g SET player_count = (SELECT count(*) FROM server_players p
	WHERE p.org = g.org AND p.job_id = g.job_id);
CREATE INDEX game_servers_players ON game_servers (org) INCLUDE (player_count);
