package findtool

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/parse"
)

// TestTokenize: words split at separators and camelCase, stop words
// dropped, the rest Snowball-stemmed (so "issues" meets "issue", "entities"
// meets "entity"); names also give their camelCase parts joined.
func TestTokenize(t *testing.T) {
	for in, want := range map[string][]string{
		"create_issue":                 {"creat", "issu"},
		"hubspot-list-objects":         {"hubspot", "list", "object"},
		"getHTTPResponse":              {"get", "http", "respons"},
		"API-retrieve-a-page":          {"api", "retriev", "page"},
		"security-advisories/list":     {"secur", "advisori", "list"},
		"spotify.show_liked_songs":     {"spotifi", "show", "like", "song"},
		"Search the web for the news":  {"search", "web", "news"},
		"entities, addresses, batches": {"entiti", "address", "batch"},
		"status of the analysis, v2":   {"status", "analysi", "v2"},
		"page 3":                       {"page", "3"},
		"brave_news_search":            {"brave", "news", "search"},
	} {
		if got := tokenize(in); !reflect.DeepEqual(got, want) {
			t.Errorf("tokenize(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string][]string{
		"listAppsV1NamespacedStatefulSet": {"list", "app", "v1", "namespac", "state", "set", "listapp", "namespacedst", "statefulset"},
		"statefulsets":                    {"statefulset"},
		"entity":                          {"entiti"},
	} {
		if got := tokenizeName(in); !reflect.DeepEqual(got, want) {
			t.Errorf("tokenizeName(%q) = %q, want %q", in, got, want)
		}
	}
}

func tool(wire, desc string, params ...string) *ir.Tool {
	t := &ir.Tool{Wire: ir.WireName(wire), Py: ir.Ident(wire), Description: desc}
	for i := 0; i+1 < len(params); i += 2 {
		t.Params = append(t.Params, &ir.Param{Arg: params[i], Py: ir.Ident(params[i]), Description: params[i+1]})
	}
	return t
}

func small() *Index {
	return New([]Doc{
		{"github", tool("create_issue", "Create a new issue in a GitHub repository", "owner", "Repository owner", "title", "Issue title")},
		{"github", tool("list_issues", "List issues in a GitHub repository with filtering options", "state", "Filter by state")},
		{"github", tool("get_issue", "Get details of a specific issue", "issue_number", "The issue number")},
		{"github", tool("create_pull_request", "Create a new pull request", "title", "PR title")},
		{"gitlab", tool("create_issue", "Create a new issue in a GitLab project")},
		{"slack", tool("slack_post_message", "Post a new message to a Slack channel", "channel_id", "The ID of the channel", "text", "The message text")},
		{"slack", tool("slack_get_users", "Get a list of all users in the workspace")},
	})
}

func names(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, string(h.Service)+"."+string(h.Tool.Wire))
	}
	return out
}

func TestSearchSmall(t *testing.T) {
	x := small()
	for _, tc := range []struct {
		q    string
		k    int
		want []string
	}{
		{"create an issue on github", 3, []string{"github.create_issue", "gitlab.create_issue", "github.create_pull_request"}},
		// get_issue says "issue" in its name, description, parameter name and
		// parameter description; list_issues only in the first two, but
		// it is of the service whose tools all say "issue" (domain words).
		{"issues", 0, []string{"github.get_issue", "github.create_issue", "github.list_issues", "gitlab.create_issue"}},
		{"post message to channel", 2, []string{"slack.slack_post_message"}},
		{"createIssue", 2, []string{"github.create_issue", "gitlab.create_issue"}},
		{"users", 5, []string{"slack.slack_get_users"}},
		{"nothing matches this", 5, nil},
	} {
		if got := names(x.Search(tc.q, tc.k)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Search(%q, %d) = %q, want %q", tc.q, tc.k, got, tc.want)
		}
	}
}

func TestTieBreak(t *testing.T) {
	// Identical tools in three services score the same: service order wins.
	var docs []Doc
	for _, s := range []ir.ServiceName{"zeta", "alpha", "mid"} {
		docs = append(docs, Doc{s, tool("ping", "Ping the server")}, Doc{s, tool("echo", "Ping back the message")})
	}
	x := New(docs)
	got := names(x.Search("ping", 0))
	want := []string{"alpha.ping", "mid.ping", "zeta.ping", "alpha.echo", "mid.echo", "zeta.echo"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := names(x.Search("ping", 2)); !reflect.DeepEqual(got, want[:2]) {
		t.Errorf("top 2: %q", got)
	}
}

func TestExact(t *testing.T) {
	x := New([]Doc{
		{"hubspot", &ir.Tool{Wire: "hubspot-list-objects", Py: "hubspot_list_objects"}},
		{"github", &ir.Tool{Wire: "create_issue", Py: "create_issue"}},
		{"gitlab", &ir.Tool{Wire: "create_issue", Py: "create_issue"}},
		{"api", &ir.Tool{Wire: "get_user", Py: "get_user"}},
	})
	for in, want := range map[string]string{
		"hubspot.hubspot_list_objects":     "hubspot.hubspot-list-objects",
		"hubspot.hubspot-list-objects":     "hubspot.hubspot-list-objects",
		"api.hubspot.hubspot_list_objects": "hubspot.hubspot-list-objects",
		"hubspot_list_objects":             "hubspot.hubspot-list-objects",
		"hubspot-list-objects()":           "hubspot.hubspot-list-objects",
		" github.create_issue ":            "github.create_issue",
		"api.gitlab.create_issue":          "gitlab.create_issue",
		"create_issue":                     "", // two services have it
		"github.nope":                      "",
		"api.get_user":                     "api.get_user",
		"api.api.get_user":                 "api.get_user",
	} {
		d, ok := x.Exact(in)
		got := ""
		if ok {
			got = string(d.Service) + "." + string(d.Tool.Wire)
		}
		if got != want {
			t.Errorf("Exact(%q) = %q, want %q", in, got, want)
		}
	}
}

// corpusDocs builds a Doc for every tool of every testdata/corpus/mcp file:
// name, description, and the inputSchema's properties with descriptions.
// Service names get suffix appended (for the benchmark's replicas).
func corpusDocs(t testing.TB, suffix string) []Doc {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "corpus", "mcp", "*.json"))
	if len(files) == 0 {
		t.Fatal("no corpus")
	}
	var docs []Doc
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Tools []struct {
				Name        string `json:"name"`
				Title       string `json:"title"`
				Description string `json:"description"`
				InputSchema struct {
					Properties map[string]struct {
						Description string `json:"description"`
					} `json:"properties"`
				} `json:"inputSchema"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(f, err)
		}
		svc := ir.ServiceIdent(strings.TrimSuffix(filepath.Base(f), ".json") + suffix)
		for _, tl := range doc.Tools {
			it := &ir.Tool{Wire: ir.WireName(tl.Name), Py: ir.Ident(tl.Name), Title: tl.Title, Description: tl.Description}
			var ps []string
			for p := range tl.InputSchema.Properties {
				ps = append(ps, p)
			}
			sort.Strings(ps)
			for _, p := range ps {
				it.Params = append(it.Params, &ir.Param{Arg: p, Py: ir.Ident(p), Description: tl.InputSchema.Properties[p].Description})
			}
			docs = append(docs, Doc{svc, it})
		}
	}
	return docs
}

// Queries an agent would write, each with the tools a person would accept
// as the answer; one of them must be in the top 3.
func TestCorpusRelevance(t *testing.T) {
	x := New(corpusDocs(t, ""))
	if x.Len() < 250 {
		t.Fatalf("only %d tools", x.Len())
	}
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"create an issue on github", []string{"github.create_issue"}},
		{"search the web", []string{"brave_search_v2.brave_web_search"}},
		{"add observations to an entity", []string{"memory.add_observations"}},
		{"take a screenshot of the page", []string{"playwright.browser_take_screenshot", "puppeteer.puppeteer_screenshot"}},
		{"post a message in a slack channel", []string{"slack.slack_post_message"}},
		{"scale a deployment", []string{"kubernetes.kubectl_scale"}},
		{"driving directions between two addresses", []string{"google_maps.maps_directions"}},
		{"refund a payment", []string{"stripe.create_refund"}},
		{"merge a pull request", []string{"github.merge_pull_request"}},
		{"read a text file", []string{"filesystem.read_text_file", "filesystem.read_file"}},
		{"list files in a directory", []string{"filesystem.list_directory", "filesystem.list_directory_with_sizes"}},
		{"crawl a website", []string{"firecrawl.firecrawl_crawl"}},
		// Verbs people say that API names spell otherwise.
		{"open a pull request", []string{"github.create_pull_request"}},
		{"remove an entity from the knowledge graph", []string{"memory.delete_entities"}},
		{"fetch a stripe customer", []string{"stripe.list_customers"}},
	} {
		hits := x.Search(tc.q, 3)
		got := names(hits)
		ok := false
		for _, g := range got {
			for _, w := range tc.want {
				ok = ok || g == w
			}
		}
		if !ok {
			t.Errorf("Search(%q) top 3 = %q, want one of %q", tc.q, got, tc.want)
		}
	}
}

func BenchmarkSearch5000(b *testing.B) {
	var docs []Doc
	for i := 0; len(docs) < 5000; i++ {
		docs = append(docs, corpusDocs(b, fmt.Sprint("_", i))...)
	}
	docs = docs[:5000]
	b.Run("index", func(b *testing.B) {
		for b.Loop() {
			New(docs)
		}
	})
	x := New(docs)
	for _, q := range []string{"create an issue on github", "take a screenshot of the page", "list"} {
		b.Run(strings.ReplaceAll(q, " ", "_"), func(b *testing.B) {
			for b.Loop() {
				if len(x.Search(q, 8)) != 8 {
					b.Fatal("short")
				}
			}
		})
	}
}

// TestGitHubRESTRelevance: over GitHub's 1,223 REST operations, where many
// names share the same words, plain requests find the operation that does
// it in the top 3.
func TestGitHubRESTRelevance(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the 13 MB GitHub spec")
	}
	svc, err := parse.OpenAPIFile("../testdata/corpus/openapi/github-rest.json", parse.Options{Service: "github"})
	if err != nil {
		t.Fatal(err)
	}
	var docs []Doc
	for _, tool := range svc.Tools {
		docs = append(docs, Doc{Service: svc.Name, Tool: tool})
	}
	x := New(docs)
	for _, tc := range []struct{ q, want string }{
		{"create an issue", "github.issues/create"},
		{"open an issue", "github.issues/create"},
		{"merge a pull request", "github.pulls/merge"},
		{"get the contents of a file in a repo", "github.repos/get-content"},
		{"add a label to an issue", "github.issues/add-labels"},
		{"list commits of a repository", "github.repos/list-commits"},
		{"star a repository", "github.activity/star-repo-for-authenticated-user"},
	} {
		got := names(x.Search(tc.q, 3))
		found := false
		for _, g := range got {
			found = found || g == tc.want
		}
		if !found {
			t.Errorf("Search(%q) top 3 = %q, want %s among them", tc.q, got, tc.want)
		}
	}
}

// TestFirstSentenceSaysWhatItDoes: a word in the first sentence of a
// description (what the tool does) counts more than the same word in a
// later one (how to call it), however long the rest is.
func TestFirstSentenceSaysWhatItDoes(t *testing.T) {
	x := New([]Doc{
		{"fs", tool("op_a", "Read a file from disk. Each directory on the path must exist.")},
		{"fs", tool("op_b", "Create a directory on disk. Each file on the path must exist.")},
	})
	hs := x.Search("directory", 2)
	if len(hs) != 2 || hs[0].Tool.Wire != "op_b" {
		t.Fatalf("Search(directory) = %v, want op_b first", hs)
	}
	if got := leadSentence("List pets. Returns 10 by default.\nMore."); got != "List pets" {
		t.Errorf("leadSentence = %q", got)
	}
	if got := leadSentence("v1.2 of the API: no stop"); got != "v1.2 of the API: no stop" {
		t.Errorf("leadSentence = %q", got)
	}
}

// TestSearchOfOneLongWord pins the bug that a query word's cost grew with
// the square of its length: every prefix was looked up for an
// abbreviation and every cut in two stemmed, so one 16,000-letter word
// took a search seconds and a megabyte-long one hours. Each of these
// returns at once now.
func TestSearchOfOneLongWord(t *testing.T) {
	x := small()
	for _, q := range []string{strings.Repeat("a", 1<<20), strings.Repeat("é", 1<<19), "create " + strings.Repeat("issue", 1<<18)} {
		x.Search(q, 8)
	}
}

// TestSearchKeepsNothingBetweenSearches: a search works in scratch space
// kept for the next one; whatever order searches come in, each one's hits
// (every match, with scores) are those of the same search on a fresh
// index, also from many goroutines at once.
func TestSearchKeepsNothingBetweenSearches(t *testing.T) {
	docs := corpusDocs(t, "")
	queries := []string{"create an issue on github", "take a screenshot of the page", "list", "delete the branch", "zzzz nothing matches"}
	want := map[string][]Hit{}
	for _, q := range queries {
		want[q] = New(docs).Search(q, 0)
	}
	x := New(docs)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 3 * len(queries) {
				q := queries[(i+g)%len(queries)]
				k := []int{0, 8, 1}[i%3]
				got := x.Search(q, k)
				w := want[q]
				if k > 0 && k < len(w) {
					w = w[:k]
				}
				if !slices.Equal(got, w) {
					t.Errorf("Search(%q, %d) after other searches = %v, want %v", q, k, names(got), names(w))
					return
				}
			}
		})
	}
	wg.Wait()
}
