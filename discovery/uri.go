package discovery

import (
	"fmt"
	"strconv"
	"strings"
)

// URISpec is a URI template: Curator's UriSpec, such as
// "{scheme}://{address}:{port}/api". Instance.URI fills it in.
type URISpec struct {
	Parts []URIPart
}

// URIPart is a piece of a URISpec: literal text, or the name of a
// variable.
type URIPart struct {
	Value    string
	Variable bool
}

// ParseURISpec parses a template as Curator's UriSpec(String) does: text
// between braces is a variable (its name trimmed); a brace inside a
// variable, a closing brace without an opening one, and an unclosed
// variable are errors (ErrInvalidArg).
func ParseURISpec(template string) (*URISpec, error) {
	spec := &URISpec{Parts: []URIPart{}}
	inside := false
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 { // Java's StringTokenizer makes no empty tokens
			v := text.String()
			if inside {
				v = strings.TrimSpace(v)
			}
			spec.Parts = append(spec.Parts, URIPart{Value: v, Variable: inside})
			text.Reset()
		}
	}
	for _, r := range template {
		switch r {
		case '{':
			if inside {
				return nil, fmt.Errorf("%w: URI spec %q: { inside a variable", ErrInvalidArg, template)
			}
			flush()
			inside = true
		case '}':
			if !inside {
				return nil, fmt.Errorf("%w: URI spec %q: } without {", ErrInvalidArg, template)
			}
			flush()
			inside = false
		default:
			text.WriteRune(r)
		}
	}
	if inside {
		return nil, fmt.Errorf("%w: URI spec %q: a variable is not closed", ErrInvalidArg, template)
	}
	flush()
	return spec, nil
}

// String returns the template the spec was parsed from, in a canonical
// form.
func (s *URISpec) String() string {
	var b strings.Builder
	for _, p := range s.Parts {
		if p.Variable {
			b.WriteString("{" + p.Value + "}")
		} else {
			b.WriteString(p.Value)
		}
	}
	return b.String()
}

// URI fills in the instance's URI spec as Curator's buildUriSpec does
// ("" without one): scheme (https with an SSL port, else http), name, id,
// address, port, ssl-port, registration-time-utc, service-type (in lower
// case), and [ and ] for literal braces. A field that is not set, and a
// variable it does not know, become "".
func (i Instance[T]) URI() string {
	if i.URISpec == nil {
		return ""
	}
	vars := map[string]string{
		"[": "{", "]": "}", "scheme": "http",
		"name": i.Name, "id": i.ID, "address": i.Address,
		"registration-time-utc": strconv.FormatInt(millis(i.RegistrationTime), 10),
		"service-type":          strings.ToLower(string(orDynamic(i.ServiceType))),
	}
	if i.Port != 0 {
		vars["port"] = strconv.Itoa(i.Port)
	}
	if i.SSLPort != 0 {
		vars["ssl-port"] = strconv.Itoa(i.SSLPort)
		vars["scheme"] = "https"
	}
	var b strings.Builder
	for _, p := range i.URISpec.Parts {
		if p.Variable {
			b.WriteString(vars[p.Value])
		} else {
			b.WriteString(p.Value)
		}
	}
	return b.String()
}

// orDynamic returns t, or Dynamic if t is unset.
func orDynamic(t ServiceType) ServiceType {
	if t == "" {
		return Dynamic
	}
	return t
}
