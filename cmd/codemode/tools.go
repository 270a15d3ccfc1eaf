package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// toolsList is codemode tools --json.
type toolsList struct {
	ReadGate string         `json:"read_gate"`
	Services []toolsService `json:"services"`
}

type toolsService struct {
	Name    string      `json:"name"`
	Source  string      `json:"source"`
	Granted int         `json:"granted"`
	Total   int         `json:"total"`
	Tools   []toolsTool `json:"tools"`
}

type toolsTool struct {
	Call      string `json:"call"`
	Wire      string `json:"wire"`
	Signature string `json:"signature"`
	Summary   string `json:"summary,omitempty"`
	Granted   bool   `json:"granted"`
	ReadOnly  bool   `json:"read_only,omitempty"`
}

// cmdTools lists a pack's tools from its generated files (no server is
// started): per service, the granted tools' call forms and first sentences;
// --all adds the ungranted ones, marked.
func cmdTools(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("tools", stderr)
	config := fs.String("c", "codemode.yaml", "pack `FILE`")
	asJSON := fs.Bool("json", false, "print JSON")
	all := fs.Bool("all", false, "list the tools the pack does not grant too")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr("codemode tools: unexpected argument %q", fs.Arg(0))
	}
	p, err := loadPack(*config, nil, "")
	if err != nil {
		return err
	}
	g, err := p.ReadSurface()
	if err != nil {
		return err
	}
	pairs, err := p.Join(g.Manifest)
	if err != nil {
		return err
	}
	list := toolsList{ReadGate: p.Runtime.ReadGate}
	if list.ReadGate == "" {
		list.ReadGate = "file"
	}
	for _, pr := range pairs {
		s := toolsService{Name: string(pr.Manifest.Name), Source: pr.Service.Describe(), Total: len(pr.Manifest.Tools), Tools: []toolsTool{}}
		for _, t := range pr.Manifest.Tools {
			granted := pr.Service.Grant == nil || slices.Contains(pr.Service.Grant, string(t.Wire))
			if granted {
				s.Granted++
			}
			if !granted && !*all {
				continue
			}
			s.Tools = append(s.Tools, toolsTool{
				Call: t.Call, Wire: string(t.Wire), Signature: t.Signature, Summary: firstSentence(t.Description),
				Granted: granted, ReadOnly: t.Annotations.ReadOnly,
			})
		}
		list.Services = append(list.Services, s)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(list)
	}
	for i, s := range list.Services {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		fmt.Fprintf(stdout, "%s (%s): %d of %s granted\n", s.Name, s.Source, s.Granted, count(s.Total, "tool"))
		for _, t := range s.Tools {
			mark := ""
			if !t.Granted {
				mark = "  [not granted]"
			}
			fmt.Fprintf(stdout, "  %s%s\n", t.Signature, mark)
			if t.Summary != "" {
				fmt.Fprintf(stdout, "      %s\n", t.Summary)
			}
		}
	}
	return nil
}

// firstSentence is a description's first sentence on one line, at most 160
// characters.
func firstSentence(desc string) string {
	desc, _, _ = strings.Cut(strings.TrimSpace(desc), "\n\n")
	desc = strings.Join(strings.Fields(desc), " ")
	if i := strings.Index(desc, ". "); i >= 0 {
		desc = desc[:i+1]
	}
	if r := []rune(desc); len(r) > 160 {
		desc = string(r[:159]) + "…"
	}
	return desc
}
