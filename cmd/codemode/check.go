package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/codemode-dev/codemode/golden"
	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/pack"
)

// cmdCheck regenerates the pack in memory and compares it with the files on
// disk: exit 0 when they match, 1 with a unified diff when anything is stale.
func cmdCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("check", stderr)
	config := fs.String("c", "codemode.yaml", "pack `FILE`")
	out := fs.String("o", "", "generated `DIR` to compare (default: the pack's out:)")
	noEnrich := fs.Bool("no-enrich", false, "compare with files generated with --no-enrich (default: as the files on disk were generated)")
	asJSON := fs.Bool("json", false, "print JSON: every directory and stale file")
	observedFrom := observedFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr("codemode check: unexpected argument %q", fs.Arg(0))
	}
	p, err := loadPack(*config, nil, *out)
	if err != nil {
		return err
	}
	// Files generated with --no-enrich say so (they have no enrich.jsonl):
	// they are compared as gen --no-enrich would write them now.
	if !*noEnrich && pack.GeneratedWithoutEnrichment(p.Path(p.Out)) {
		*noEnrich = true
	}
	observed, err := observedReturns(ctx, p, observedFrom)
	if err != nil {
		return err
	}
	res, err := pack.Compile(ctx, p, pack.Options{NoEnrich: *noEnrich, Observed: observed})
	if err != nil {
		return err
	}
	fix := "run codemode gen -c " + *config
	if *noEnrich && !p.Enrich.Disabled {
		fix += " --no-enrich"
	}
	if observedFrom.off {
		fix += " --no-observed"
	}
	var stale []string
	n := 0
	report := checkReport{Dirs: []string{}, Stale: []checkFile{}}
	for _, t := range res.Trees {
		mode := golden.Subset
		if t.Whole {
			mode = golden.Exact
		}
		diffs, err := golden.Differences(t.Dir, t.Files, mode)
		if errors.Is(err, iofs.ErrNotExist) {
			diffs, err = golden.Differences(t.Dir, t.Files, golden.Subset)
		}
		if err != nil {
			return err
		}
		report.Dirs = append(report.Dirs, t.Dir)
		for _, d := range diffs {
			if *asJSON {
				report.Stale = append(report.Stale, checkFile{Dir: d.Dir, File: d.Name, Kind: kindName[d.Kind], Diff: relabel(d.Diff)})
				continue
			}
			fmt.Fprintln(stdout, relabel(d.Message("")))
		}
		if len(diffs) > 0 {
			stale = append(stale, t.Dir)
			n += len(diffs)
			if !*asJSON && oldPins(t.Dir) {
				fmt.Fprintf(stdout, "%s/manifest.json: its pins are in format 1, from an earlier codemode; codemode gen rewrites them in format 2 (until then serve and run still check them by the old rule)\n", t.Dir)
			}
		}
	}
	if *asJSON {
		report.UpToDate = len(stale) == 0
		if !report.UpToDate {
			report.Fix = fix
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(report); err != nil {
			return err
		}
	}
	if len(stale) == 0 {
		for _, t := range res.Trees {
			if *asJSON {
				break
			}
			fmt.Fprintf(stdout, "%s is up to date\n", t.Dir)
		}
		return nil
	}
	return &exitError{1, fmt.Sprintf("codemode check: %d generated file(s) are stale in %s; %s", n, strings.Join(stale, ", "), fix)}
}

// checkReport is codemode check --json.
type checkReport struct {
	UpToDate bool        `json:"up_to_date"`
	Dirs     []string    `json:"dirs"`
	Stale    []checkFile `json:"stale"`
	Fix      string      `json:"fix,omitempty"`
}

type checkFile struct {
	Dir  string `json:"dir"`
	File string `json:"file"`
	Kind string `json:"kind"` // changed, missing, extra
	Diff string `json:"diff,omitempty"`
}

var kindName = map[golden.Kind]string{golden.Changed: "changed", golden.Missing: "missing", golden.Extra: "extra"}

// relabel names the two sides of a diff for a reader of check: the file on
// disk and what gen would write now. The header is the first " (want)" and
// " (got)" of the message.
func relabel(msg string) string {
	msg = strings.Replace(msg, " (want)\n+++ ", " (on disk)\n+++ ", 1)
	return strings.Replace(msg, " (got)\n", " (regenerated)\n", 1)
}

// oldPins says whether the manifest.json in dir carries pins in format 1
// (before pins hashed each shared definition once).
func oldPins(dir string) bool {
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return false
	}
	var m struct {
		Services []struct {
			Tools []struct {
				Pin string `json:"pin"`
			} `json:"tools"`
		} `json:"services"`
	}
	if json.Unmarshal(data, &m) != nil {
		return false
	}
	for _, s := range m.Services {
		for _, t := range s.Tools {
			if strings.HasPrefix(t.Pin, manifest.PinV1Prefix) {
				return true
			}
		}
	}
	return false
}
