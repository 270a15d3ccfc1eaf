package gateway_test

import (
	"context"
	"log"
	"os"
	"os/signal"

	example "github.com/codemode-dev/codemode/examples/pack"
	"github.com/codemode-dev/codemode/gateway"
	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/runtime"
	"github.com/codemode-dev/codemode/runtime/upstream"
)

// Embedding the gateway in a Go program: the compiled surface comes from a
// generated Go package (no files read), the upstream is started by the
// program, and Open installs the gateway's own hooks (shapes, audit, jobs,
// pins) before it starts the runtime. With Addr set, Serve serves
// streamable HTTP instead of stdio.
func ExampleOpen() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	s, err := example.Surface()
	if err != nil {
		log.Fatal(err)
	}
	everything, err := upstream.NewMCP(upstream.MCPConfig{Name: "everything", Command: []string{"npx", "-y", "@modelcontextprotocol/server-everything"}})
	if err != nil {
		log.Fatal(err)
	}
	cfg := runtime.Config{
		Manifest: s.Manifest, Files: s.Files,
		Upstreams: map[ir.ServiceName]upstream.Upstream{"everything": everything},
	}
	g, err := gateway.Open(ctx, gateway.FromConfig(cfg), gateway.Options{
		Dir:  ".codemode", // audit.jsonl, shapes.json, jobs/
		Logf: log.Printf,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()
	if err := g.Serve(ctx, os.Stdin, os.Stdout); err != nil {
		log.Fatal(err)
	}
}
