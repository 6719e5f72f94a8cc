package discovery

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// Jackson's class names for payloads that carry no class of the caller's:
// what Curator's JsonInstanceSerializer writes for a Map and a List.
const (
	defaultObjectClass = "java.util.LinkedHashMap"
	defaultArrayClass  = "java.util.ArrayList"
)

// wireInstance is the JSON of an instance, its keys in the order Jackson
// writes ServiceInstance's (Curator's compatible mode, which leaves enabled
// out; we write it only when false).
type wireInstance struct {
	Name                string          `json:"name"`
	ID                  string          `json:"id"`
	Address             *string         `json:"address"`
	Port                *int            `json:"port"`
	SSLPort             *int            `json:"sslPort"`
	Payload             json.RawMessage `json:"payload"`
	RegistrationTimeUTC int64           `json:"registrationTimeUTC"`
	ServiceType         *string         `json:"serviceType"`
	URISpec             *wireURISpec    `json:"uriSpec"`
	Enabled             *bool           `json:"enabled,omitempty"`
}

type wireURISpec struct {
	Parts []wirePart `json:"parts"`
}

type wirePart struct {
	Value    string `json:"value"`
	Variable bool   `json:"variable"`
}

// codec writes and reads instances as curator-x-discovery's
// JsonInstanceSerializer does.
type codec[T any] struct {
	class string // the Java class of object and array payloads; "" for Jackson's Map and List
}

// marshal returns an instance's JSON.
func (c codec[T]) marshal(i Instance[T]) ([]byte, error) {
	payload, err := c.marshalPayload(i.Payload)
	if err != nil {
		return nil, fmt.Errorf("%w: instance %s/%s: the payload does not marshal: %w", ErrInvalidArg, i.Name, i.ID, err)
	}
	w := wireInstance{
		Name:                i.Name,
		ID:                  i.ID,
		Payload:             payload,
		RegistrationTimeUTC: millis(i.RegistrationTime),
	}
	if i.Address != "" {
		w.Address = &i.Address
	}
	if i.Port != 0 {
		w.Port = &i.Port
	}
	if i.SSLPort != 0 {
		w.SSLPort = &i.SSLPort
	}
	st := string(orDynamic(i.ServiceType))
	w.ServiceType = &st
	if i.URISpec != nil {
		w.URISpec = &wireURISpec{Parts: make([]wirePart, len(i.URISpec.Parts))}
		for k, p := range i.URISpec.Parts {
			w.URISpec.Parts[k] = wirePart(p)
		}
	}
	if i.Disabled {
		f := false
		w.Enabled = &f
	}
	return encode(w)
}

// marshalPayload writes the payload as Jackson's default typing does for
// Curator's @JsonTypeInfo(use = CLASS): an object gets its class as the
// first key, an array is wrapped as [class, array], a scalar is bare.
func (c codec[T]) marshalPayload(p T) (json.RawMessage, error) {
	raw, err := encode(p)
	if err != nil {
		return nil, err
	}
	switch {
	case len(raw) > 0 && raw[0] == '{':
		class, _ := encode(c.classOr(defaultObjectClass))
		out := append([]byte(`{"@class":`), class...)
		if rest := bytes.TrimSpace(raw[1:]); len(rest) > 0 && rest[0] != '}' {
			out = append(out, ',')
		}
		return append(out, raw[1:]...), nil
	case len(raw) > 0 && raw[0] == '[':
		class, _ := encode(c.classOr(defaultArrayClass))
		out := append(append([]byte{'['}, class...), ',')
		return append(append(out, raw...), ']'), nil
	}
	return raw, nil
}

func (c codec[T]) classOr(def string) string {
	if c.class != "" {
		return c.class
	}
	return def
}

// unmarshal reads an instance's JSON as Curator's reader does: unknown keys
// are ignored, and missing ones keep Java's defaults (empty name and id, the
// Dynamic type, registration time 0, enabled).
func (c codec[T]) unmarshal(data []byte) (Instance[T], error) {
	var w wireInstance
	var i Instance[T]
	if err := json.Unmarshal(data, &w); err != nil {
		return i, err
	}
	i.Name, i.ID = w.Name, w.ID
	if w.Address != nil {
		i.Address = *w.Address
	}
	if w.Port != nil {
		i.Port = *w.Port
	}
	if w.SSLPort != nil {
		i.SSLPort = *w.SSLPort
	}
	if w.RegistrationTimeUTC != 0 {
		i.RegistrationTime = time.UnixMilli(w.RegistrationTimeUTC)
	}
	i.ServiceType = Dynamic
	if w.ServiceType != nil {
		i.ServiceType = ServiceType(*w.ServiceType)
	}
	if w.URISpec != nil {
		i.URISpec = &URISpec{Parts: make([]URIPart, len(w.URISpec.Parts))}
		for k, p := range w.URISpec.Parts {
			i.URISpec.Parts[k] = URIPart(p)
		}
	}
	i.Disabled = w.Enabled != nil && !*w.Enabled
	if err := unmarshalPayload(w.Payload, &i.Payload); err != nil {
		return i, fmt.Errorf("the payload does not unmarshal into %T: %w", i.Payload, err)
	}
	return i, nil
}

// unmarshalPayload reads a payload Jackson typed: the "@class" key of an
// object is dropped, a [class, value] pair is unwrapped.
func unmarshalPayload[T any](raw json.RawMessage, p *T) error {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0:
		return nil
	case raw[0] == '{':
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(raw, &fields); err != nil {
			return err
		}
		if _, ok := fields["@class"]; ok {
			delete(fields, "@class")
			var err error
			if raw, err = json.Marshal(fields); err != nil {
				return err
			}
		}
	case raw[0] == '[':
		var pair []json.RawMessage
		if err := json.Unmarshal(raw, &pair); err == nil && len(pair) == 2 {
			var class string
			if json.Unmarshal(pair[0], &class) == nil {
				raw = pair[1]
			}
		}
	}
	return json.Unmarshal(raw, p)
}

// encode marshals v as Jackson writes JSON: compact, without escaping
// HTML characters.
func encode(v any) ([]byte, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), nil
}

// millis returns t in milliseconds since the epoch, 0 for the zero time.
func millis(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}
