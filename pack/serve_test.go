package pack_test

import (
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/pack"
)

func TestServeSection(t *testing.T) {
	p, err := pack.Parse([]byte("services:\n  - mcp: a.json\nserve:\n  auth: {tokens_file: secrets/tokens, authorization_servers: [\"https://auth.example.com\"]}\n  idle_ttl: 10m\n  public_url: https://mcp.example.com/\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Serve.Auth.TokensFile != "secrets/tokens" || p.Serve.IdleTTLDuration() != 10*time.Minute || p.Serve.PublicURL != "https://mcp.example.com/" || len(p.Serve.Auth.AuthorizationServers) != 1 {
		t.Fatalf("serve = %+v", p.Serve)
	}
	for _, c := range []struct{ vectors, flag, want string }{
		{"", "", ""},
		{"off", "", "off"},
		{"vectors/words.bin", "", "/pack/vectors/words.bin"},
		{"/data/words.bin", "", "/data/words.bin"},
		{"vectors/words.bin", "off", "off"},
		{"off", "/tmp/w.bin", "/tmp/w.bin"},
	} {
		p, err := pack.Parse([]byte("services:\n  - mcp: a.json\nserve:\n  vectors: \"" + c.vectors + "\"\n"))
		if err != nil {
			t.Fatal(err)
		}
		p.Dir = "/pack"
		if got := p.VectorsSetting(c.flag); got != c.want {
			t.Errorf("serve.vectors %q, --vectors %q: %q, want %q", c.vectors, c.flag, got, c.want)
		}
		p, err = pack.Parse([]byte("services:\n  - mcp: a.json\nserve:\n  sentences: \"" + c.vectors + "\"\n"))
		if err != nil {
			t.Fatal(err)
		}
		p.Dir = "/pack"
		if got := p.SentencesSetting(c.flag); got != c.want {
			t.Errorf("serve.sentences %q, --sentences %q: %q, want %q", c.vectors, c.flag, got, c.want)
		}
	}
	for _, c := range []struct{ yaml, want string }{
		{"serve:\n  auth: {tokens_env: A, tokens_file: b}\n", "serve.auth: set one of tokens_env and tokens_file, not both"},
		{"serve:\n  auth: {tokens_env: \"$A\"}\n", `serve.auth.tokens_env: "$A" is not an environment variable name`},
		{"serve:\n  auth: {token_env: A}\n", `bad pack file: line 4: unknown key "token_env"`},
		{"serve:\n  idle_ttl: 30\n", `serve.idle_ttl: "30" is not a positive duration like "30m"`},
		{"serve:\n  idle_ttl: -1m\n", `serve.idle_ttl: "-1m" is not a positive duration like "30m"`},
		{"serve:\n  public_url: mcp.example.com\n", `serve.public_url: "mcp.example.com" is not an http(s) URL`},
		{"serve:\n  auth: {authorization_servers: [auth]}\n", `serve.auth.authorization_servers[0]: "auth" is not an http(s) URL`},
	} {
		_, err := pack.Parse([]byte("services:\n  - mcp: a.json\n" + c.yaml))
		if err == nil || !strings.HasSuffix(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want %s", c.yaml, err, c.want)
		}
	}
}
