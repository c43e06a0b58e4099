-- Drops the schema partitioning.sql makes. Each partition goes in a
-- statement of its own: DROP SCHEMA part CASCADE in one transaction
-- would lock the 1,000-odd partitions and their indexes at once, past
-- the lock table's room (max_locks_per_transaction).
SELECT format('DROP TABLE %s', c.oid::regclass) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = 'part' AND c.relkind = 'r' AND c.relispartition \gexec
DROP SCHEMA IF EXISTS part CASCADE;
