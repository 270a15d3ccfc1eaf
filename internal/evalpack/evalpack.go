// Package evalpack is find_tool's evaluation pack, as the tests that score
// the ranking build it (gateway's TestFindEval and TestFindHeldApart,
// findtool's sentence experiment): the 16 MCP tool lists and 9 OpenAPI
// documents of testdata/corpus, and the catalogues kept apart in
// testdata/heldapart (5 MCP tool lists, 11 OpenAPI specs), 5,892 tools in
// one pack. One definition, so that every score is over the same tools.
package evalpack

import (
	"path/filepath"

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
