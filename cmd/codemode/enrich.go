package main

import (
	"context"
	"fmt"
	"io"

	"github.com/codemode-dev/codemode/enrich"
	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/pack"
)

// cmdEnrich explains the enrichment decisions for one tool: every proposal,
// accepted or rejected, with its evidence and reason.
func cmdEnrich(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("enrich", stderr)
	var srcs sourceFlags
	srcs.register(fs)
	config := fs.String("c", "", "pack `FILE` (codemode.yaml)")
	tool := fs.String("explain", "", "the `TOOL` (wire name) whose decisions to print")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *tool == "" {
		return usageErr("usage: codemode enrich -c codemode.yaml --explain TOOL")
	}
	p, err := loadPack(*config, srcs.sources, "")
	if err != nil {
		return err
	}
	res, err := pack.Compile(ctx, p, pack.Options{})
	if err != nil {
		return err
	}
	for _, s := range res.Services {
		for _, t := range s.Tools {
			if string(t.Wire) == *tool || string(t.Py) == *tool {
				return enrich.Explain(stdout, res.Decisions, t.Wire)
			}
		}
	}
	return fmt.Errorf("no tool named %q in %s", *tool, describeSources(p))
}

func describeSources(p *pack.Pack) string {
	var names []ir.ServiceName
	for _, s := range p.Services {
		names = append(names, ir.ServiceName(s.Describe()))
	}
	return fmt.Sprint(names)
}
