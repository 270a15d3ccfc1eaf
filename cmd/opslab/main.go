// Command opslab serves the operations lab (package opslab) over MCP on
// stdin/stdout: an ITSM, a CMDB, monitoring and an automation controller,
// with data generated from a seed, and optionally one planted fault.
//
//	opslab -size large -seed 1 -fault disk-full -services controller
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-dev/codemode/opslab"
)

func main() {
	size := flag.String("size", "small", "lab size: small or large")
	seed := flag.Uint64("seed", 1, "data seed")
	fault := flag.String("fault", "", "planted fault: "+strings.Join(opslab.FaultIDs(), ", ")+" (default none)")
	services := flag.String("services", "", "comma-separated services to serve: "+strings.Join(opslab.Services, ", ")+" (default all)")
	state := flag.String("state", "", "file to share the lab clock and fixes through, when each service runs in its own process")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "opslab: unexpected arguments:", flag.Args())
		os.Exit(2)
	}
	lab, err := opslab.New(opslab.Config{Seed: *seed, Size: opslab.Size(*size), Fault: *fault, State: *state})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var svcs []string
	if *services != "" {
		svcs = strings.Split(*services, ",")
	}
	srv, err := opslab.NewServer(lab, svcs...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "opslab:", err)
		os.Exit(1)
	}
}
