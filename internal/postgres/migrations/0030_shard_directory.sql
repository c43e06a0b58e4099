-- The directory of organizations placed on other PostgreSQL primaries
-- (gatehouse serve --shards): an organization without a row lives in this
-- database, as every organization did before, so nothing needs a backfill.
-- Shards are named by the id each keeps in its settings ('shard'), not by
-- their address, which may change. Only the database given as --db keeps
-- rows here; on a shard the table stays empty.
CREATE TABLE organization_shards (
  org       uuid PRIMARY KEY,
  shard     uuid NOT NULL,
  placed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX organization_shards_by_shard ON organization_shards (shard);

-- Every instance caches the directory and drops an organization's entry
-- when it hears of a change here, whoever made it.
CREATE FUNCTION organization_shards_notify() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('gatehouse_directory', OLD.org::text);
  ELSE
    PERFORM pg_notify('gatehouse_directory', NEW.org::text);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER organization_shards_changed
  AFTER INSERT OR UPDATE OR DELETE ON organization_shards
  FOR EACH ROW EXECUTE FUNCTION organization_shards_notify();

-- A TRUNCATE changes every entry: an empty payload says so.
CREATE FUNCTION organization_shards_truncated() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('gatehouse_directory', '');
  RETURN NULL;
END $$;
CREATE TRIGGER organization_shards_emptied
  AFTER TRUNCATE ON organization_shards
  FOR EACH STATEMENT EXECUTE FUNCTION organization_shards_truncated();
