package validate_test

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/validate"
)

func Example() {
	schema := map[string]any{
		"type":     "object",
		"required": []any{"sort_by"},
		"properties": map[string]any{
			"sort_by": map[string]any{"type": "string", "enum": []any{"liked_at", "play_count", "title"}},
			"limit":   map[string]any{"type": "integer", "maximum": json.Number("50")},
		},
		"additionalProperties": false,
	}
	tool := validate.Tool{
		ID: ir.ToolID{Service: "spotify", Wire: "show_liked_songs"}, Py: "show_liked_songs",
		Params: []validate.Param{{Arg: "sort_by", Py: "sort_by"}, {Arg: "limit", Py: "limit"}},
		Input:  schema,
	}
	v, err := validate.New([]validate.Tool{tool})
	if err != nil {
		panic(err)
	}
	for _, call := range []string{
		`{"sort_by": "liked_at", "limit": 20}`,
		`{"sort_by": "likedAt"}`,
		`{"sort_by": "title", "limit": 500}`,
		`{"sortby": "title"}`,
	} {
		dec := json.NewDecoder(strings.NewReader(call))
		dec.UseNumber()
		var args map[string]any
		_ = dec.Decode(&args)
		fmt.Println(v.Check("spotify", "show_liked_songs", args))
	}
	// Output:
	// <nil>
	// api.spotify.show_liked_songs: argument sort_by must be one of "liked_at", "play_count", "title"; got "likedAt". Did you mean "liked_at"?
	// api.spotify.show_liked_songs: argument limit must be <= 50; got 500
	// api.spotify.show_liked_songs: unknown argument 'sortby'. Did you mean 'sort_by'?
}
