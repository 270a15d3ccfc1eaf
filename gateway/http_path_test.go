package gateway_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/codemode-dev/codemode/gateway"
)

// TestHTTPURLEndsInSlash pins the endpoint path: the MCP Inspector cannot
// classify a URL ending in "/", so the endpoint is /mcp (the URL serve
// prints, the resource the metadata names, also at RFC 9728's path-inserted
// metadata URL), and / still serves clients configured before.
func TestHTTPURLEndsInSlash(t *testing.T) {
	f := newFixture(t, false, nil)
	hs := serveHTTP(t, f, gateway.HTTPOptions{Tokens: tokensFile(t, writeTokens(t, tokenA))})
	for _, path := range []string{gateway.MCPPath, "/"} {
		if _, err := connectHTTP(t, hs.URL+path, tokenA); err != nil {
			t.Fatalf("connecting to %s: %v", path, err)
		}
	}
	want := `{"resource":"` + hs.URL + `/mcp","bearer_methods_supported":["header"],"resource_name":"codemode"}` + "\n"
	for _, path := range []string{gateway.MetadataPath, gateway.MetadataPath + gateway.MCPPath} {
		resp, err := http.Get(hs.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(data) != want {
			t.Fatalf("%s: %d\n%s", path, resp.StatusCode, data)
		}
	}

	open := serveHTTP(t, f, gateway.HTTPOptions{NoAuth: true})
	for _, path := range []string{gateway.MCPPath, "/"} {
		if _, err := connectHTTP(t, open.URL+path, ""); err != nil {
			t.Fatalf("no auth, connecting to %s: %v", path, err)
		}
	}
}
