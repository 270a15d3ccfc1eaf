// Package evalpack is find_tool's evaluation pack, as the tests that score
// the ranking build it (gateway's TestFindEval and TestFindHeldApart,
// findtool's sentence experiment): the 16 MCP tool lists and 9 OpenAPI
// documents of testdata/corpus, and the catalogues kept apart in
// testdata/heldapart (5 MCP tool lists, 11 OpenAPI specs), 5,892 tools in
// one pack. One definition, so that every score is over the same tools.
package evalpack

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/codemode-dev/codemode/pack"
)

// corpusOpenAPI are testdata/corpus/openapi's documents and the service
// name each gets.
var corpusOpenAPI = [][2]string{
	{"github-rest.json", "github_rest"}, {"stripe.yaml", "stripe_rest"}, {"kubernetes-swagger.json", "kubernetes_rest"},
	{"notion.json", "notion_rest"}, {"train-travel.json", "train_travel"}, {"petstore-v3.json", "petstore"},
	{"alertmanager.yaml", "alertmanager"}, {"uspto.json", "uspto"}, {"burgershop.yaml", "burgershop"},
}

// heldApartOpenAPI are testdata/heldapart/openapi's specs and the service
// name each gets.
var heldApartOpenAPI = [][2]string{
	{"twilio-api.json", "twilio"}, {"sendgrid.json", "sendgrid"}, {"asana.json", "asana"}, {"jira.json", "jira"},
	{"adyen-checkout.json", "adyen_checkout"}, {"vimeo.json", "vimeo"}, {"digitalocean.json", "digitalocean"},
	{"google-calendar.json", "google_calendar"}, {"zoom.json", "zoom"}, {"netlify.json", "netlify"},
	{"launchdarkly.json", "launchdarkly"},
}

// Pack is the evaluation pack, its sources under the checkout's root (a
// test's ".." from a package one level down), written to "api" of the
// working directory.
func Pack(root string) *pack.Pack {
	files, _ := filepath.Glob(filepath.Join(root, "testdata/corpus/mcp/*.json"))
	held, _ := filepath.Glob(filepath.Join(root, "testdata/heldapart/mcp/*.json"))
	files = append(files, held...)
	p := &pack.Pack{Dir: ".", Out: "api"}
	for _, f := range files {
		p.Services = append(p.Services, pack.Service{MCP: f})
	}
	for _, s := range corpusOpenAPI {
		p.Services = append(p.Services, pack.Service{OpenAPI: filepath.Join(root, "testdata/corpus/openapi", s[0]), Name: s[1]})
	}
	for _, s := range heldApartOpenAPI {
		p.Services = append(p.Services, pack.Service{OpenAPI: filepath.Join(root, "testdata/heldapart/openapi", s[0]), Name: s[1]})
	}
	return p
}

// Query is one line of an evaluation file (findtool/testdata/eval.tsv,
// heldapart.tsv): the half it belongs to, a need in an agent's words, and
// the tools ("service.python_name") that are right answers.
type Query struct {
	Half, Text string
	Want       []string
}

// Queries reads the evaluation file at path, whose lines are
// half<TAB>query<TAB>answers with half one of halves; blank lines and
// lines starting with # are left out.
func Queries(path string, halves ...string) ([]Query, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []Query
	for n, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, "\t")
		if len(parts) != 3 || !slices.Contains(halves, parts[0]) || parts[1] == "" || len(strings.Fields(parts[2])) == 0 {
			return nil, fmt.Errorf("%s:%d: want half (one of %s)<TAB>query<TAB>answers", filepath.Base(path), n+1, strings.Join(halves, ", "))
		}
		out = append(out, Query{parts[0], parts[1], strings.Fields(parts[2])})
	}
	return out, nil
}

// Score is one set's figures: how many queries had a right answer first,
// in the first 3, in the first 8, and the sum of 1/rank.
type Score struct {
	N, Top1, Top3, Top8 int
	RR                  float64
}

// Add counts one query whose first right answer stood at rank (1 is
// first; 0 when none was shown).
func (s *Score) Add(rank int) {
	s.N++
	if rank < 1 {
		return
	}
	if rank == 1 {
		s.Top1++
	}
	if rank <= 3 {
		s.Top3++
	}
	if rank <= 8 {
		s.Top8++
	}
	s.RR += 1 / float64(rank)
}

// Rates are top-1, top-3, top-8 and MRR as shares of the queries.
func (s Score) Rates() (top1, top3, top8, mrr float64) {
	n := float64(max(s.N, 1))
	return float64(s.Top1) / n, float64(s.Top3) / n, float64(s.Top8) / n, s.RR / n
}
