package gateway_test

import (
	"regexp"
	"testing"

	"github.com/codemode-dev/codemode/gateway"
)

// TestSSEStreamWithoutPrimingEvent pins SEP-1699's priming event: an SSE
// response stream (for a 2025-11-25 client) opens with an event that has an
// id and no data, so a client that loses the stream can resume it with
// Last-Event-ID instead of losing the reply.
func TestSSEStreamWithoutPrimingEvent(t *testing.T) {
	f := newFixture(t, false, nil)
	hs := serveHTTP(t, f, gateway.HTTPOptions{NoAuth: true})
	resp, body := post(t, hs.URL+gateway.MCPPath, "", "",
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("%d %s:\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	if !regexp.MustCompile(`^event: prime\nid: \S+\ndata: \n\nevent: message\nid: \S+\ndata: \{"jsonrpc":"2.0","id":1,"result":`).MatchString(body) {
		t.Fatalf("the stream does not open with a priming event:\n%s", body)
	}
}
