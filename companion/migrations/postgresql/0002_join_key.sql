-- A table's join secret (the SQLite store's schema 5), carried by its join link and QR code:
-- without it nobody but the table's creator takes a free seat. The tables made before get one
-- each (122 random bits of gen_random_uuid, PostgreSQL 13 and later).

ALTER TABLE tables ADD COLUMN join_key TEXT;
UPDATE tables SET join_key = replace(gen_random_uuid()::text, '-', '') WHERE join_key IS NULL;
ALTER TABLE tables ALTER COLUMN join_key SET NOT NULL;
