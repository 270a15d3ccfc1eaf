#!/bin/sh
# codemode as the client of the conformance suite's auth scenarios. For
# each scenario the suite starts an MCP server behind an OAuth
# authorization server that approves at once, and runs this script with
# the server's URL; the scenario's name and context (a pre-registered
# client's id and secret) are in MCP_CONFORMANCE_SCENARIO and
# MCP_CONFORMANCE_CONTEXT. The script does what a user does: a pack with
# an oauth service, codemode gen, codemode run.
set -e
url="$1"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
# The pack: headless (the authorization server approves without a user),
# a client ID metadata document where the server takes one, the
# pre-registered client where the scenario gives one, client_credentials
# for those scenarios (with a secret, or a private key that signs the
# client's JWT), grant enterprise where the scenario hands over the user's
# ID token from an identity provider. Secrets go through the environment.
eval "$(node -e '
const ctx = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || "{}");
const q = (s) => "\x27" + String(s).replace(/\x27/g, "\x27\\\x27\x27") + "\x27";
if (ctx.client_secret) console.log("export CONFORMANCE_CLIENT_SECRET=" + q(ctx.client_secret));
if (ctx.idp_id_token) console.log("export CONFORMANCE_ID_TOKEN=" + q(ctx.idp_id_token));
')"
node -e '
const [url] = process.argv.slice(1);
const ctx = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || "{}");
const scenario = process.env.MCP_CONFORMANCE_SCENARIO || "";
const auth = { type: "oauth", headless: true };
if (scenario.startsWith("auth/client-credentials")) auth.grant = "client_credentials";
else if (ctx.idp_id_token) Object.assign(auth, { grant: "enterprise", idp_issuer: ctx.idp_issuer, idp_client_id: ctx.idp_client_id, id_token_env: "CONFORMANCE_ID_TOKEN" });
else auth.client_metadata_url = "https://conformance-test.local/client-metadata.json";
if (ctx.client_id) auth.client_id = ctx.client_id;
if (ctx.client_secret) auth.client_secret_env = "CONFORMANCE_CLIENT_SECRET";
if (ctx.private_key_pem) {
  require("fs").writeFileSync("client-key.pem", ctx.private_key_pem, { mode: 0o600 });
  auth.client_key_file = "client-key.pem";
}
// A loopback port free now for the redirect, so that runs side by side
// do not collide.
const probe = require("net").createServer();
probe.listen(0, "127.0.0.1", () => {
  const port = probe.address().port;
  probe.close(() => {
    if (!auth.grant) auth.redirect_url = "http://127.0.0.1:" + port + "/callback";
    const pack = { out: "api", services: [{ name: "conf", mcp_url: url, auth }] };
    console.log(JSON.stringify(pack, null, 2));
  });
});
' "$url" > codemode.yaml
codemode gen
printf 'print(api.conf.test_tool())\n' > p.py
codemode run p.py
