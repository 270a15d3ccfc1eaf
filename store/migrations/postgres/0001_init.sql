-- codemode store, version 1 (PostgreSQL).
-- Times are microseconds since the Unix epoch (UTC); JSON is text.
CREATE TABLE codemode_session (
    id         TEXT PRIMARY KEY,
    record     TEXT    NOT NULL DEFAULT '{}',-- the runtime's record: pending wait, approvals (JSON)
    state      BYTEA,                         -- the Monty session dump, NULL when none
    names      TEXT    NOT NULL DEFAULT '[]',-- names the saved programs defined (JSON list)
    state_at   BIGINT NOT NULL DEFAULT 0,    -- when state was saved
    corrupt    BYTEA,                         -- a state that could not be restored, kept for inspection
    corrupt_at BIGINT NOT NULL DEFAULT 0,
    lease      TEXT    NOT NULL DEFAULT '', -- the replica running one of its programs now
    lease_til  BIGINT NOT NULL DEFAULT 0     -- until when that lease holds
);
CREATE TABLE codemode_job (
    session     TEXT    NOT NULL,
    name        TEXT    NOT NULL,
    kind        TEXT    NOT NULL,
    tool        TEXT    NOT NULL DEFAULT '',
    body        TEXT    NOT NULL,            -- the job as JSON (args, spec, result, error, ...)
    state       TEXT    NOT NULL,
    owner       TEXT    NOT NULL DEFAULT '', -- the replica running it; '' while queued
    queue_id    BIGINT NOT NULL DEFAULT 0,  -- its river_job id
    started_at  BIGINT NOT NULL,
    ended_at    BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (session, name)
);
CREATE INDEX codemode_job_running ON codemode_job (owner) WHERE state = 'running';
CREATE TABLE codemode_read (
    session TEXT    NOT NULL,
    file    TEXT    NOT NULL,
    lo      BIGINT NOT NULL,
    hi      BIGINT NOT NULL,
    at      BIGINT NOT NULL,
    PRIMARY KEY (session, file, lo, hi)
);
CREATE TABLE codemode_replica (
    id         TEXT PRIMARY KEY,
    host       TEXT    NOT NULL,
    pid        BIGINT NOT NULL,
    started_at BIGINT NOT NULL,
    seen_at    BIGINT NOT NULL
);
