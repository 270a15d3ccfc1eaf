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
		host, base := o.top.Host, o.top.BasePath
		if host == "" {
			if base == "" {
				return nil
			}
			return []string{base}
		}
		schemes := o.top.Schemes
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
	for i, s := range o.top.Servers {
		srv := readServer(asMap(s))
		u := srv.URL
		if u == "" {
			o.d.add(ir.DiagBadServer, "/servers/"+strconv.Itoa(i), "server has no url; skipped")
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(srv.Variables)) {
			def := asMap(srv.Variables[name])["default"]
			if def == nil {
				o.d.add(ir.DiagBadServer, "/servers/"+strconv.Itoa(i)+"/variables/"+esc(name), "server variable %q has no default; left in the URL", name)
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
	defs, base := o.top.SecuritySchemes, "/components/securitySchemes"
	if o.v2 {
		base = "/securityDefinitions"
	}
	var out []ir.SecurityScheme
	for _, name := range slices.Sorted(maps.Keys(defs)) {
		ptr := base + "/" + esc(name)
		m, _ := o.deref(defs[name], ptr)
		if m == nil {
			continue
		}
		s := readSecurityScheme(m)
		sc := ir.SecurityScheme{Name: name}
		switch t := s.Type; t {
		case "basic":
			sc.Type = "basic"
		case "http":
			switch scheme := strings.ToLower(s.Scheme); scheme {
			case "bearer", "basic":
				sc.Type = scheme
			default:
				o.d.add(ir.DiagUnsupportedSec, ptr, "HTTP auth scheme %q is not supported; kept as type \"http\"", scheme)
				sc.Type = "http"
			}
		case "apiKey":
			sc.Type, sc.In, sc.Header = "apiKey", s.In, s.Name
		case "oauth2", "openIdConnect":
			sc.Type = t
		default:
			o.d.add(ir.DiagUnsupportedSec, ptr, "security scheme type %q is not supported; kept as given", t)
			sc.Type = t
		}
		out = append(out, sc)
	}
	return out
}
