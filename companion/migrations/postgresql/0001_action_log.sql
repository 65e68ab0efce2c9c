-- The companion's schema on PostgreSQL: the same tables and columns as the SQLite store at its
-- schema 4 (companion/store.py), one append-only log of actions per table.

CREATE TABLE tables (
    id BIGSERIAL PRIMARY KEY,
    code TEXT NOT NULL UNIQUE,
    game TEXT NOT NULL,
    layouts TEXT NOT NULL,              -- JSON list: the layout data of each seat
    creator_token TEXT NOT NULL,
    created DOUBLE PRECISION NOT NULL,  -- seconds since the epoch
    request_key TEXT UNIQUE             -- the idempotency key of the request that made it
);

CREATE TABLE players (
    table_id BIGINT NOT NULL REFERENCES tables(id),
    seat INTEGER NOT NULL,
    name TEXT NOT NULL,
    token TEXT UNIQUE,                  -- NULL until someone joins as this seat
    PRIMARY KEY (table_id, seat)
);

CREATE TABLE actions (
    table_id BIGINT NOT NULL REFERENCES tables(id),
    seq INTEGER NOT NULL,               -- 1, 2, 3, ... per table
    action TEXT NOT NULL,               -- JSON, engine.table.action_to_json
    created DOUBLE PRECISION NOT NULL,
    by_seat INTEGER,                    -- who wrote it: a seat, or -1 for the creator
    request_key TEXT,                   -- the idempotency key the page sent with it
    PRIMARY KEY (table_id, seq),
    UNIQUE (table_id, request_key)
);

CREATE TABLE teach_log (
    table_id BIGINT NOT NULL REFERENCES tables(id),
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,                 -- example, withdraw, use, stop, colour_photo, ...
    face TEXT,
    colour TEXT,
    box TEXT,                           -- JSON [x0, y0, x1, y1]
    image BYTEA,                        -- the photo as uploaded
    ref INTEGER,
    created DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (table_id, seq)
);

-- The logs are append-only: a row once written is never changed or removed.
CREATE FUNCTION refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only', TG_TABLE_NAME;
END
$$;
CREATE TRIGGER actions_append_only BEFORE UPDATE OR DELETE ON actions
    FOR EACH ROW EXECUTE FUNCTION refuse_change();
CREATE TRIGGER teach_log_append_only BEFORE UPDATE OR DELETE ON teach_log
    FOR EACH ROW EXECUTE FUNCTION refuse_change();
