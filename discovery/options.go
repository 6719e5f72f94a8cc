package discovery

import "fmt"

// Option configures a Discovery.
type Option func(*options)

type options struct {
	payloadClass string
}

// WithPayloadClass sets the Java class written as the type of object and
// array payloads (Jackson's "@class"). Java readers whose payload class is
// a bean (ServiceDiscoveryBuilder.builder(Details.class)) need that bean's
// class name here, "com.example.Details"; readers of Map or Object payloads
// take what the default writes: "java.util.LinkedHashMap" for objects and
// "java.util.ArrayList" for arrays, as Jackson writes a Java Map or List.
// Reading ignores the class.
func WithPayloadClass(class string) Option { return func(o *options) { o.payloadClass = class } }

func applyOptions(basePath string, opts []Option) (options, error) {
	var o options
	for _, opt := range opts {
		if opt == nil {
			return o, fmt.Errorf("%w: discovery %s: nil option", ErrInvalidArg, basePath)
		}
		opt(&o)
	}
	return o, nil
}
