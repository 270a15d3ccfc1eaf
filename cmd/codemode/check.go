package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/codemode-dev/codemode/golden"
	"github.com/codemode-dev/codemode/pack"
)

// cmdCheck regenerates the pack in memory and compares it with the files on
// disk: exit 0 when they match, 1 with a unified diff when anything is stale.
func cmdCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("check", stderr)
	config := fs.String("c", "codemode.yaml", "pack `FILE`")
	out := fs.String("o", "", "generated `DIR` to compare (default: the pack's out:)")
	noEnrich := fs.Bool("no-enrich", false, "the files were generated with --no-enrich")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	p, err := loadPack(*config, nil, *out)
	if err != nil {
		return err
	}
	res, err := pack.Compile(ctx, p, pack.Options{NoEnrich: *noEnrich})
	if err != nil {
		return err
	}
	dir := p.Path(p.Out)
	diffs := golden.Compare(dir, res.Files)
	if len(diffs) == 0 {
		fmt.Fprintf(stdout, "%s is up to date\n", dir)
		return nil
	}
	fmt.Fprintln(stdout, strings.Join(diffs, "\n"))
	return &exitError{1, fmt.Sprintf("codemode check: %s is stale: %d file(s) differ; run codemode gen -c %s", dir, len(diffs), *config)}
}
