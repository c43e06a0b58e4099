-- A webhook secret's rotation (docs/api.md, "Webhooks"): while an
-- endpoint's previous secret still signs, its sealed secrets hold both,
-- and this is when the previous one stops (ms); NULL otherwise.
ALTER TABLE webhooks ADD COLUMN previous_secret_until INTEGER;
