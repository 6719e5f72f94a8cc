package discovery

import (
	"errors"
	"reflect"
	"testing"
	"time"
)

// Bytes Curator 5.4's JsonInstanceSerializer (compatible mode, the
// default) wrote for ServiceInstance.builder().name("svc").id("id-1")
// .address("10.0.0.1").port(8080).registrationTimeUTC(1700000000000L)
// .uriSpec(new UriSpec("{scheme}://{address}:{port}/x/{name}")), with the
// payloads below (see docs/recipes/discovery.md for the probe).
const (
	javaHead = `{"name":"svc","id":"id-1","address":"10.0.0.1","port":8080,"sslPort":null,"payload":`
	javaTail = `,"registrationTimeUTC":1700000000000,"serviceType":"DYNAMIC","uriSpec":{"parts":[{"value":"scheme","variable":true},{"value":"://","variable":false},{"value":"address","variable":true},{"value":":","variable":false},{"value":"port","variable":true},{"value":"/x/","variable":false},{"value":"name","variable":true}]}}`
)

func javaInstance(payload string) []byte { return []byte(javaHead + payload + javaTail) }

// probeInstance is the instance javaHead/javaTail describe, with payload p.
func probeInstance[T any](p T) Instance[T] {
	spec, _ := ParseURISpec("{scheme}://{address}:{port}/x/{name}")
	return Instance[T]{Name: "svc", ID: "id-1", Address: "10.0.0.1", Port: 8080, Payload: p,
		RegistrationTime: time.UnixMilli(1700000000000), ServiceType: Dynamic, URISpec: spec}
}

type details struct {
	Region string `json:"region"`
	Weight int    `json:"weight"`
}

// Go writes what Jackson writes, byte for byte: a Map payload, a bean
// payload with its class, a List, scalars, null.
func TestMarshalAsJacksonDoes(t *testing.T) {
	for _, tt := range []struct {
		name  string
		got   func() ([]byte, error)
		javas string
	}{
		{"map", func() ([]byte, error) {
			return codec[map[string]any]{}.marshal(probeInstance(map[string]any{"impl": "curator", "n": 3}))
		}, `{"@class":"java.util.LinkedHashMap","impl":"curator","n":3}`},
		{"bean", func() ([]byte, error) {
			return codec[details]{class: "Probe$Details"}.marshal(probeInstance(details{"eu", 5}))
		}, `{"@class":"Probe$Details","region":"eu","weight":5}`},
		{"empty object", func() ([]byte, error) {
			return codec[map[string]any]{}.marshal(probeInstance(map[string]any{}))
		}, `{"@class":"java.util.LinkedHashMap"}`},
		{"list", func() ([]byte, error) {
			return codec[[]string]{class: "java.util.Arrays$ArrayList"}.marshal(probeInstance([]string{"a", "b"}))
		}, `["java.util.Arrays$ArrayList",["a","b"]]`},
		{"string", func() ([]byte, error) { return codec[string]{}.marshal(probeInstance("hello")) }, `"hello"`},
		{"integer", func() ([]byte, error) { return codec[int]{}.marshal(probeInstance(42)) }, `42`},
		{"double", func() ([]byte, error) { return codec[float64]{}.marshal(probeInstance(1.5)) }, `1.5`},
		{"boolean", func() ([]byte, error) { return codec[bool]{}.marshal(probeInstance(true)) }, `true`},
		{"null", func() ([]byte, error) { return codec[any]{}.marshal(probeInstance[any](nil)) }, `null`},
		{"nil pointer", func() ([]byte, error) { return codec[*details]{}.marshal(probeInstance[*details](nil)) }, `null`},
	} {
		got, err := tt.got()
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if want := string(javaInstance(tt.javas)); string(got) != want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, want)
		}
	}
}

// Go reads what Jackson writes: the class key dropped, a typed scalar
// unwrapped.
func TestUnmarshalWhatJacksonWrites(t *testing.T) {
	check := func(name string, got, want any, err error) {
		t.Helper()
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %#v, %v; want %#v", name, got, err, want)
		}
	}
	m, err := codec[map[string]any]{}.unmarshal(javaInstance(`{"@class":"java.util.LinkedHashMap","impl":"curator","n":3}`))
	check("map", m, probeInstance(map[string]any{"impl": "curator", "n": 3.0}), err)
	b, err := codec[details]{}.unmarshal(javaInstance(`{"@class":"Probe$Details","region":"eu","weight":5}`))
	check("bean", b, probeInstance(details{"eu", 5}), err)
	l, err := codec[int64]{}.unmarshal(javaInstance(`["java.lang.Long",42]`))
	check("long", l, probeInstance[int64](42), err)
	s, err := codec[[]string]{}.unmarshal(javaInstance(`["java.util.Arrays$ArrayList",["a","b"]]`))
	check("list", s, probeInstance([]string{"a", "b"}), err)
	n, err := codec[*details]{}.unmarshal(javaInstance(`null`))
	check("null", n, probeInstance[*details](nil), err)
	a, err := codec[any]{}.unmarshal(javaInstance(`{"@class":"Probe$Details","region":"eu"}`))
	check("any", a, probeInstance[any](map[string]any{"region": "eu"}), err)

	// Nulls, missing keys and the enabled field, as Jackson reads them.
	i, err := codec[any]{}.unmarshal([]byte(`{"name":"svc","id":"x","address":null,"port":null,"payload":null,"serviceType":"STATIC","uriSpec":null,"enabled":false,"unknown":1}`))
	check("nulls", i, Instance[any]{Name: "svc", ID: "x", ServiceType: Static, Disabled: true}, err)
	i, err = codec[any]{}.unmarshal([]byte(`{}`))
	check("empty", i, Instance[any]{ServiceType: Dynamic}, err)
	if _, err := (codec[details]{}).unmarshal(javaInstance(`"a string"`)); err == nil {
		t.Error("a string payload read into a struct")
	}
}

// A disabled instance carries "enabled":false, last, as Curator's full
// mode writes it; an enabled one leaves the field out, as its default
// (compatible) mode does.
func TestEnabledField(t *testing.T) {
	i := probeInstance[any](nil)
	i.Disabled = true
	got, err := codec[any]{}.marshal(i)
	if err != nil {
		t.Fatal(err)
	}
	want := javaHead + "null" + javaTail[:len(javaTail)-1] + `,"enabled":false}`
	if string(got) != want {
		t.Fatalf("got %s\nwant %s", got, want)
	}
	back, err := codec[any]{}.unmarshal(got)
	if err != nil || !back.Disabled {
		t.Fatalf("read back: %+v, %v", back, err)
	}
}

// A payload that does not marshal is ErrInvalidArg.
func TestPayloadThatDoesNotMarshal(t *testing.T) {
	_, err := codec[any]{}.marshal(probeInstance[any](func() {}))
	if !errors.Is(err, ErrInvalidArg) {
		t.Fatalf("%v, want ErrInvalidArg", err)
	}
}

// URI specs parse and build as Curator's UriSpec does.
func TestURISpec(t *testing.T) {
	i := probeInstance[any](nil)
	if got := i.URI(); got != "http://10.0.0.1:8080/x/svc" { // what Curator's buildUriSpec gave
		t.Errorf("URI = %q", got)
	}
	i.SSLPort = 8443
	i.URISpec, _ = ParseURISpec("{scheme}://{ address }:{ssl-port}/{service-type}/{registration-time-utc}/{[}x{]}{nothing}{}")
	if got := i.URI(); got != "https://10.0.0.1:8443/dynamic/1700000000000/{x}" {
		t.Errorf("URI = %q", got)
	}
	if got := i.URISpec.String(); got != "{scheme}://{address}:{ssl-port}/{service-type}/{registration-time-utc}/{[}x{]}{nothing}" {
		t.Errorf("String = %q", got)
	}
	for _, bad := range []string{"{a{b}}", "a}", "{a", "x{"} {
		if _, err := ParseURISpec(bad); !errors.Is(err, ErrInvalidArg) {
			t.Errorf("ParseURISpec(%q) = %v, want ErrInvalidArg", bad, err)
		}
	}
	if (Instance[any]{}).URI() != "" {
		t.Error("an instance without a URI spec has a URI")
	}
}
