package suggest

import (
	"strings"
	"testing"
)

// TestClosestOneRule pins the one rule both validation and the runtime's
// hints now use (they disagreed: the runtime ignored '_' and transpositions
// and allowed two edits in a three-letter name).
func TestClosestOneRule(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cands []string
		want  int
	}{
		{"likedAt", []string{"liked_at", "play_count"}, 0},
		{"titel", []string{"body", "title"}, 1},
		{"xyz", []string{"title", "body"}, -1},
		{"ab", []string{"cd"}, -1},
		{"statte", []string{"state", "stat"}, 0},
		{"echoo", []string{"echo", "get_env"}, 0},
		{"createIssue", []string{"list_issues", "create_issue"}, 1},
		{"github", []string{"github_rest", "gitlab_api"}, 0},
		{"git", []string{"github_rest", "gitlab_api"}, -1},
		{"gi", []string{"github_rest"}, -1},
		{"title", []string{"title"}, -1},
		{"abc", []string{"xbc", "ayc"}, 0},
		{strings.Repeat("q", MaxLen+1), []string{strings.Repeat("q", MaxLen)}, -1},
	} {
		if got := Closest(tc.name, tc.cands); got != tc.want {
			t.Errorf("Closest(%q, %q) = %d, want %d", tc.name, tc.cands, got, tc.want)
		}
	}
}
