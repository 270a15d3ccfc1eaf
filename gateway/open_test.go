package gateway_test

import (
	"context"
	"testing"

	"github.com/codemode-dev/codemode/gateway"
	"github.com/codemode-dev/codemode/runtime"
)

// TestOpenStartedRuntimeBeforeListening pins Open's order: the HTTP
// address is taken (and its settings refused) before the runtime starts,
// so a bad address fails fast and starts no upstream.
func TestOpenStartedRuntimeBeforeListening(t *testing.T) {
	opened := false
	open := func(context.Context, func(*runtime.Config)) (*runtime.Runtime, error) {
		opened = true
		return nil, nil
	}
	_, err := gateway.Open(context.Background(), open, gateway.Options{Addr: "127.0.0.1:0"})
	want := "--http 127.0.0.1:0: no bearer tokens: name them with --token-env or --token-file (or serve.auth in the pack), or pass --insecure-no-auth on a loopback address"
	if err == nil || err.Error() != want {
		t.Fatalf("Open = %v, want %q", err, want)
	}
	if opened {
		t.Fatal("the runtime was opened before the address was refused")
	}
	if _, err := gateway.Open(context.Background(), nil, gateway.Options{}); err == nil || err.Error() != "gateway: no runtime to open" {
		t.Fatalf("Open(nil) = %v", err)
	}
}
