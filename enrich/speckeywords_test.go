package enrich

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/ir"
)

// specDisagreements are the corpus parameters where the rules, with the
// spec's own keyword taken away, read another value from the prose than
// the spec states, each for a reason that keeps the rules right.
var specDisagreements = map[string]string{
	"openapi/github-rest.json#pulls/create-review-comment#/requestBody/properties/start_side#enum":           `the spec's "side" is a stray value; the prose says LEFT or RIGHT`,
	"openapi/stripe.yaml#PostAccountsAccountBankAccountsId#/requestBody/properties/account_holder_type#enum": `the spec adds "" (clearing the field), which the prose never lists; with the spec's enum in place no change is made`,
	"openapi/stripe.yaml#PostCustomers#/requestBody/properties/invoice_prefix#maxLength":                     `the prose (3-12 letters) is stricter than the spec's 5000`,
}

// TestSpecKeywordsNotContradicted uses the specs' own keywords as labels:
// for every corpus parameter whose schema carries a keyword of the seven
// kinds, it takes the keyword away, runs the rules, and fails when they
// read a different value for it from the prose (a wrong narrowing the
// labelled sets may not hold), except for specDisagreements. It logs how
// often the rules restate the spec and how often they say nothing.
func TestSpecKeywordsNotContradicted(t *testing.T) {
	if testing.Short() {
		t.Skip("parses the whole corpus")
	}
	type tally struct{ agree, none, disagree int }
	tallies := map[string]*tally{}
	seen := map[string]bool{}
	found := map[string]bool{}
	for _, file := range corpusFiles(t) {
		for _, p := range corpusParams(t, file) {
			r := p.rec
			for _, k := range countedKeywords {
				v, ok := r.Schema[k]
				if !ok {
					continue
				}
				key := r.Description + "\x00" + k + "\x00" + show(r.Schema)
				if seen[key] {
					continue
				}
				seen[key] = true
				s := deepCopy(r.Schema).(map[string]any)
				delete(s, k)
				after, _, _ := enrichOne(ir.WireName(r.Tool), r.Pointer, r.Description, s, r.Required)
				if tallies[k] == nil {
					tallies[k] = &tally{}
				}
				nv, has := after[k]
				switch {
				case !has:
					tallies[k].none++
				case sameValue(k, nv, v):
					tallies[k].agree++
				default:
					tallies[k].disagree++
					id := r.ID + "#" + k
					found[id] = true
					if _, known := specDisagreements[id]; !known {
						t.Errorf("%s: the spec says %s, the rules read %s from %.200q", id, show(v), show(nv), r.Description)
					}
				}
			}
		}
	}
	for id := range specDisagreements {
		if !found[id] {
			t.Errorf("%s: listed as a disagreement but the rules now agree or say nothing", id)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-18s %6s %6s %9s\n", "keyword", "agree", "none", "disagree")
	keys := make([]string, 0, len(tallies))
	for k := range tallies {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		x := tallies[k]
		fmt.Fprintf(&b, "%-18s %6d %6d %9d\n", k, x.agree, x.none, x.disagree)
	}
	t.Log(b.String())
}
