-- codemode store, version 2 (PostgreSQL): the gateway's result-shape cache.
CREATE TABLE codemode_shape (
    service TEXT   NOT NULL,
    tool    TEXT   NOT NULL,             -- the tool's wire name
    body    TEXT   NOT NULL,             -- what the gateway keeps of its results (JSON: shape, schema)
    at      BIGINT NOT NULL,             -- when it last changed
    PRIMARY KEY (service, tool)
);
