package discovery

// Marshal and Unmarshal give the external tests the codec, to compare
// bytes with Java's.
func Marshal[T any](i Instance[T], opts ...Option) ([]byte, error) {
	o, err := applyOptions("", opts)
	if err != nil {
		return nil, err
	}
	return codec[T]{class: o.payloadClass}.marshal(i)
}

func Unmarshal[T any](data []byte) (Instance[T], error) { return codec[T]{}.unmarshal(data) }
