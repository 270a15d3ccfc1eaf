-- codemode store, version 1 (SQLite).
-- Times are microseconds since the Unix epoch (UTC); JSON is text.
CREATE TABLE codemode_session (
    id         TEXT PRIMARY KEY,
    record     TEXT    NOT NULL DEFAULT '{}',-- the runtime's record: pending wait, approvals (JSON)
    state      BLOB,                         -- the Monty session dump, NULL when none
    names      TEXT    NOT NULL DEFAULT '[]',-- names the saved programs defined (JSON list)
    state_at   INTEGER NOT NULL DEFAULT 0,    -- when state was saved
    corrupt    BLOB,                         -- a state that could not be restored, kept for inspection
    corrupt_at INTEGER NOT NULL DEFAULT 0,
    lease      TEXT    NOT NULL DEFAULT '', -- the replica running one of its programs now
    lease_til  INTEGER NOT NULL DEFAULT 0     -- until when that lease holds
);
CREATE TABLE codemode_job (
    session     TEXT    NOT NULL,
    name        TEXT    NOT NULL,
    kind        TEXT    NOT NULL,
    tool        TEXT    NOT NULL DEFAULT '',
    body        TEXT    NOT NULL,            -- the job as JSON (args, spec, result, error, ...)
    state       TEXT    NOT NULL,
    owner       TEXT    NOT NULL DEFAULT '', -- the replica running it; '' while queued
    queue_id    INTEGER NOT NULL DEFAULT 0,  -- its river_job id
    started_at  INTEGER NOT NULL,
    ended_at    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (session, name)
);
CREATE INDEX codemode_job_running ON codemode_job (owner) WHERE state = 'running';
CREATE TABLE codemode_read (
    session TEXT    NOT NULL,
    file    TEXT    NOT NULL,
    lo      INTEGER NOT NULL,
    hi      INTEGER NOT NULL,
    at      INTEGER NOT NULL,
    PRIMARY KEY (session, file, lo, hi)
);
CREATE TABLE codemode_replica (
    id         TEXT PRIMARY KEY,
    host       TEXT    NOT NULL,
    pid        INTEGER NOT NULL,
    started_at INTEGER NOT NULL,
    seen_at    INTEGER NOT NULL
);
