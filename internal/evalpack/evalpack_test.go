package evalpack

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestScoreCountsRanks(t *testing.T) {
	var s Score
	for _, rank := range []int{1, 2, 3, 4, 8, 9, 0} {
		s.Add(rank)
	}
	rr := 1 + 1.0/2 + 1.0/3 + 1.0/4 + 1.0/8 + 1.0/9
	if s.N != 7 || s.Top1 != 1 || s.Top3 != 3 || s.Top8 != 5 || math.Abs(s.RR-rr) > 1e-12 {
		t.Errorf("got %+v, want 7 queries, 1/3/5 in the top 1/3/8, RR %v", s, rr)
	}
	if top1, _, _, _ := (Score{}).Rates(); top1 != 0 {
		t.Errorf("no queries: top-1 %v", top1)
	}
}

func TestQueriesRefuseAnUnknownHalf(t *testing.T) {
	p := filepath.Join(t.TempDir(), "q.tsv")
	if err := os.WriteFile(p, []byte("# a comment\n\ntune\tlist issues\tgithub.list_issues github_rest.issues_list\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	qs, err := Queries(p, "tune")
	if want := []Query{{"tune", "list issues", []string{"github.list_issues", "github_rest.issues_list"}}}; err != nil || !reflect.DeepEqual(qs, want) {
		t.Errorf("got %v, %v", qs, err)
	}
	if _, err := Queries(p, "held"); err == nil || err.Error() != "q.tsv:3: want half (one of held)<TAB>query<TAB>answers" {
		t.Errorf("unknown half: %v", err)
	}
}
