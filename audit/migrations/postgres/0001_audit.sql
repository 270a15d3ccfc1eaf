-- The audit chain: one row per event, in the order the database gave them
-- (seq), each holding the exact line a file log would hold (its seq, prev
-- and hash inside it), so one verifier reads both.
CREATE TABLE codemode_audit (
    seq  bigint PRIMARY KEY,
    prev text NOT NULL,
    hash text NOT NULL,
    line text NOT NULL,
    at   timestamptz NOT NULL DEFAULT now()
);

-- The chain's head: every append locks this one row (SELECT ... FOR
-- UPDATE), so appends from every replica are serialised into one chain.
CREATE TABLE codemode_audit_head (
    id   int PRIMARY KEY CHECK (id = 1),
    seq  bigint NOT NULL,
    hash text NOT NULL
);
INSERT INTO codemode_audit_head (id, seq, hash) VALUES (1, 0, '');
