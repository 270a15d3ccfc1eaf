package main

import "testing"

func TestRegular(t *testing.T) {
	for _, c := range []struct {
		b, a string
		want bool
	}{
		{"organise", "organize", true}, {"colours", "colors", true}, {"catalogue", "catalog", true},
		{"centres", "centers", true}, {"labelled", "labeled", true}, {"enrol", "enroll", true},
		{"licence", "license", true}, {"aeon", "eon", true}, {"programme", "program", true},
		{"judgement", "judgment", true},
		{"gauge", "gage", false}, {"buses", "busses", false}, {"disc", "disk", false}, {"grey", "gray", false},
		{"centrepiece", "centerpiece", false}, // "re" only at the end
	} {
		if got := regular(c.b, c.a); got != c.want {
			t.Errorf("regular(%q, %q) = %v, want %v", c.b, c.a, got, c.want)
		}
	}
}
