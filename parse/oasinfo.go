package parse

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/codemode-dev/codemode/ir"
)

// The service-wide parts of an OpenAPI document: servers and security schemes.

func (o *oas) servers() []string {
	if o.v2 {
		host := asString(o.doc["host"])
		base := asString(o.doc["basePath"])
		if host == "" {
			if base == "" {
				return nil
			}
			return []string{base}
		}
		schemes := asSlice(o.doc["schemes"])
		if len(schemes) == 0 {
			schemes = []any{"https"}
		}
		var out []string
		for _, s := range schemes {
			out = append(out, asString(s)+"://"+host+strings.TrimSuffix(base, "/"))
		}
		return out
	}
	var out []string
	for i, s := range asSlice(o.doc["servers"]) {
		sm := asMap(s)
		u := asString(sm["url"])
		if u == "" {
			o.d.add("bad-server", "/servers/"+strconv.Itoa(i), "server has no url; skipped")
			continue
		}
		for name, v := range asMap(sm["variables"]) {
			def := asMap(v)["default"]
			if def == nil {
				o.d.add("bad-server", "/servers/"+strconv.Itoa(i)+"/variables/"+esc(name), "server variable %q has no default; left in the URL", name)
				continue
			}
			u = strings.ReplaceAll(u, "{"+name+"}", scalarString(def))
		}
		out = append(out, u)
	}
	return out
}

func scalarString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return ""
	default:
		if n, ok := v.(interface{ String() string }); ok {
			return n.String()
		}
	}
	return ""
}

func (o *oas) securitySchemes() []ir.SecurityScheme {
	var defs map[string]any
	base := "/components/securitySchemes"
	if o.v2 {
		defs, base = asMap(o.doc["securityDefinitions"]), "/securityDefinitions"
	} else {
		defs = asMap(asMap(o.doc["components"])["securitySchemes"])
	}
	var out []ir.SecurityScheme
	for _, name := range slices.Sorted(maps.Keys(defs)) {
		ptr := base + "/" + esc(name)
		s, _ := o.deref(defs[name], ptr)
		if s == nil {
			continue
		}
		sc := ir.SecurityScheme{Name: name}
		switch t := asString(s["type"]); t {
		case "basic":
			sc.Type = "basic"
		case "http":
			switch scheme := strings.ToLower(asString(s["scheme"])); scheme {
			case "bearer", "basic":
				sc.Type = scheme
			default:
				o.d.add("unsupported-security", ptr, "HTTP auth scheme %q is not supported; kept as type \"http\"", scheme)
				sc.Type = "http"
			}
		case "apiKey":
			sc.Type, sc.In, sc.Header = "apiKey", asString(s["in"]), asString(s["name"])
		case "oauth2", "openIdConnect":
			sc.Type = t
		default:
			o.d.add("unsupported-security", ptr, "security scheme type %q is not supported; kept as given", t)
			sc.Type = t
		}
		out = append(out, sc)
	}
	return out
}
