package findtool

import "testing"

func TestAmericanSpelling(t *testing.T) {
	for w, want := range map[string]string{
		"organisation": "organization", "organisations": "organizations", "authorise": "authorize",
		"authorised": "authorized", "authorisation": "authorization", "summarising": "summarizing",
		"analyse": "analyze", "analysed": "analyzed", "colour": "color", "favourites": "favorites",
		"behaviour": "behavior", "catalogue": "catalog", "dialogues": "dialogs", "centre": "center",
		"metres": "meters", "fibre": "fiber", "licence": "license", "programme": "program",
		"labelled": "labeled", "judgement": "judgment",
		// American already, the same in both, or American too.
		"organization": "organization", "advertise": "advertise", "precise": "precise",
		"enterprise": "enterprise", "resources": "resources", "size": "size", "gauge": "gauge",
		"buses": "buses", "disc": "disc", "four": "four",
	} {
		if got := american(w); got != want {
			t.Errorf("american(%q) = %q, want %q", w, got, want)
		}
	}
}

// TestBritishSpellingMeetsAmerican: a query spelt the British way finds a
// tool spelt the American way, and the other way round ("favourite" and
// "favorite" stemmed apart, so "list my favourite items" ranked list_items
// first).
func TestBritishSpellingMeetsAmerican(t *testing.T) {
	x := New([]Doc{
		{"shop", tool("list_favorites", "List your favorite items")},
		{"shop", tool("list_items", "List items")},
		{"paint", tool("get_colour_scheme", "Get the colour scheme of a theme")},
		{"paint", tool("get_scheme", "Get a scheme")},
		{"dc", tool("list_data_centers", "List the data centers of a region")},
		{"dc", tool("list_data", "List data")},
	})
	for q, want := range map[string]string{
		"list my favourite items": "shop.list_favorites",
		"get the color scheme":    "paint.get_colour_scheme",
		"list the data centres":   "dc.list_data_centers",
	} {
		if got := first(x, q); got != want {
			t.Errorf("%q: first %s, want %s", q, got, want)
		}
	}
}
