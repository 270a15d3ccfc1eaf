// Command spellgen writes findtool/spelling.txt, the British spellings
// find_tool reads as American ones, from the npm package
// american-british-english-translator (its data/british_spellings.json,
// MIT licence): every pair of single lower-case words that differ by one
// of the regular differences (regular), and for each "-ise" verb the
// "-isation" nouns its "-ize" form makes ("authorise" → authorisation,
// authorisations), which the list lacks. The irregular pairs are left
// out: some are American words too ("gauge" → gage, "buses" → busses,
// "disc" → disk), and reading them as another word would part them from
// their own forms ("gauges").
// The output is sorted, so the same package gives the same file.
//
//	scripts/spellgen   # npm pack the package, then this
//	go run ./findtool/internal/spellgen -pkg DIR -out findtool/spelling.txt
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	pkg := flag.String("pkg", "", "the unpacked npm package (its package/ directory)")
	out := flag.String("out", "findtool/spelling.txt", "the table to write")
	flag.Parse()
	if err := run(*pkg, *out); err != nil {
		fmt.Fprintln(os.Stderr, "spellgen:", err)
		os.Exit(1)
	}
}

func run(pkg, out string) error {
	if pkg == "" {
		return fmt.Errorf("-pkg is required")
	}
	var meta struct{ Name, Version, License string }
	raw, err := os.ReadFile(filepath.Join(pkg, "package.json"))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, &meta); err != nil {
		return fmt.Errorf("package.json: %v", err)
	}
	raw, err = os.ReadFile(filepath.Join(pkg, "data", "british_spellings.json"))
	if err != nil {
		return err
	}
	var pairs map[string]string
	if err := json.Unmarshal(raw, &pairs); err != nil {
		return fmt.Errorf("british_spellings.json: %v", err)
	}
	table := map[string]string{}
	for b, a := range pairs {
		if word(b) && word(a) && a != b && regular(b, a) {
			table[b] = a
		}
	}
	for b, a := range table {
		bs, ok1 := strings.CutSuffix(b, "ise")
		as, ok2 := strings.CutSuffix(a, "ize")
		if !ok1 || !ok2 {
			continue
		}
		for _, s := range []string{"isation", "isations"} {
			if _, ok := table[bs+s]; !ok {
				table[bs+s] = as + "iz" + strings.TrimPrefix(s, "is")
			}
		}
	}
	keys := make([]string, 0, len(table))
	for b := range table {
		keys = append(keys, b)
	}
	sort.Strings(keys)
	var sb strings.Builder
	fmt.Fprintf(&sb, "# find_tool's British spellings and the American ones it reads them as, a pair a line.\n")
	fmt.Fprintf(&sb, "# From the npm package %s@%s (data/british_spellings.json, %s licence, Copyright (c) 2016 Hyperreality),\n", meta.Name, meta.Version, meta.License)
	fmt.Fprintf(&sb, "# with the -isation nouns of its -ise verbs added. Written by findtool/internal/spellgen (scripts/spellgen). %d pairs.\n", len(keys))
	for _, b := range keys {
		fmt.Fprintf(&sb, "%s\t%s\n", b, table[b])
	}
	return os.WriteFile(out, []byte(sb.String()), 0o644)
}

// regular reports whether British b and American a differ by one of the
// regular differences, once: s for z ("organise", "analyse"), "our" for
// "or" ("colour"), "ogue" for "og" ("catalogue"), "re" for "er" at the
// end ("centre", "fibre"), a doubled l or a single one ("labelled",
// "enrol"), "ence" for "ense" ("licence"), "ae" or "oe" for "e" ("aeon"),
// "mme" for "m" ("programme") or "ement" for "ment" ("judgement").
func regular(b, a string) bool {
	for i := 0; i <= len(b); i++ {
		for _, d := range [][2]string{{"s", "z"}, {"our", "or"}, {"ogue", "og"}, {"re", "er"}, {"ll", "l"}, {"l", "ll"},
			{"ence", "ense"}, {"ae", "e"}, {"oe", "e"}, {"mme", "m"}, {"ement", "ment"}} {
			if strings.HasPrefix(b[i:], d[0]) && b[:i]+d[1]+b[i+len(d[0]):] == a {
				if d[0] == "re" && !strings.HasSuffix(strings.TrimSuffix(b, "s"), "re") {
					continue // only at the end: "centre", "centres"
				}
				if d[0] == "ogue" && !strings.HasSuffix(strings.TrimSuffix(b, "s"), "ogue") {
					continue
				}
				return true
			}
		}
	}
	return false
}

// word reports whether s is one lower-case word of ASCII letters.
func word(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}
