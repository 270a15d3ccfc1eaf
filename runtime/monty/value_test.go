package monty

import (
	"encoding/json"
	"math/big"
	"reflect"
	"strings"
	"testing"
)

func decodeJSON(t *testing.T, s string) any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestFromJSON(t *testing.T) {
	v, err := FromJSON(decodeJSON(t, `{"z": 1, "a": [1.5, 12345678901234567890123, null, true, "s"], "m": {"y": -3, "b": 2e3}}`))
	if err != nil {
		t.Fatal(err)
	}
	wide, _ := new(big.Int).SetString("12345678901234567890123", 10)
	want := NewDict(
		"a", []any{1.5, wide, nil, true, "s"},
		"m", NewDict("b", 2000.0, "y", int64(-3)),
		"z", int64(1),
	)
	if !reflect.DeepEqual(v, want) {
		t.Errorf("FromJSON = %s, want %s", Format(v), Format(want))
	}
	if _, err := FromJSON(struct{}{}); err == nil {
		t.Error("FromJSON accepted a struct")
	}
}

func TestToJSON(t *testing.T) {
	wide, _ := new(big.Int).SetString("-12345678901234567890123", 10)
	v := NewDict("b", Tuple{int64(1), "x"}, "a", []any{Set{2.5}, nil, true, wide})
	j, err := ToJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `{"a":[[2.5],null,true,-12345678901234567890123],"b":[1,"x"]}`; got != want {
		t.Errorf("ToJSON = %s, want %s", got, want)
	}
	for _, c := range []struct {
		v    Value
		want string
	}{
		{NewDict(int64(1), "x"), "dict key 1 is a int, JSON object keys must be str"},
		{NewDict("k", []any{[]byte("x")}), `["k"]: [0]: a value of type bytes cannot be converted to JSON`},
		{NewInstance("Thing"), "a value of type Thing cannot be converted to JSON"},
	} {
		if _, err := ToJSON(c.v); err == nil || err.Error() != c.want {
			t.Errorf("ToJSON(%s) err = %v, want %q", Format(c.v), err, c.want)
		}
	}
}
