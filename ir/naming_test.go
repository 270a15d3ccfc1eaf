package ir

import "testing"

func TestIdent(t *testing.T) {
	for in, want := range map[string]PyIdent{
		"create_issue": "create_issue",
		"API-get-user": "API_get_user",
		"security-advisories/list-global-advisories": "security_advisories_list_global_advisories",
		"from":              "from_",
		"class":             "class_",
		"continue":          "continue_",
		"x-loc-lat":         "x_loc_lat",
		"$ref":              "ref",
		"2fa":               "n2fa",
		"":                  "x",
		"---":               "x",
		"_private":          "_private",
		"a..b":              "a_b",
		"get /pets/{petId}": "get_pets_petId",
		"Any":               "Any_",
		"self":              "self_",
		"list":              "list_",
		"str":               "str_",
		"selfie":            "selfie",
		"naïve":             "na_ve",
	} {
		if got := Ident(in); got != want {
			t.Errorf("Ident(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNamerClashes(t *testing.T) {
	n := NewNamer("api")
	got := []PyIdent{n.Name("a-b"), n.Name("a_b"), n.Name("a.b"), n.Name("api"), n.Name("a_b_2")}
	want := []PyIdent{"a_b", "a_b_2", "a_b_3", "api_2", "a_b_2_2"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("name %d = %q, want %q", i, got[i], want[i])
		}
	}
}

func TestServiceIdent(t *testing.T) {
	if got := ServiceIdent("Swagger Petstore - OpenAPI 3.0"); got != "swagger_petstore_openapi_3_0" {
		t.Errorf("got %q", got)
	}
}
