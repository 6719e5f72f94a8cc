package queue

// Serializer turns a queue's items into bytes and back: Curator's
// QueueSerializer. Java and Go processes sharing a queue must agree on it.
// An error from Serialize fails the Put; an error from Deserialize makes the
// node holding the item corrupt (see Queue).
type Serializer[T any] interface {
	Serialize(item T) ([]byte, error)
	Deserialize(data []byte) (T, error)
}

// Bytes is the Serializer of raw bytes: an item is its bytes.
type Bytes struct{}

// Serialize returns item itself.
func (Bytes) Serialize(item []byte) ([]byte, error) { return item, nil }

// Deserialize returns data itself.
func (Bytes) Deserialize(data []byte) ([]byte, error) { return data, nil }

// String is the Serializer of strings as their UTF-8 bytes, as Java's
// new String(bytes, UTF_8) and s.getBytes(UTF_8) read and write them.
type String struct{}

// Serialize returns item's bytes.
func (String) Serialize(item string) ([]byte, error) { return []byte(item), nil }

// Deserialize returns data as a string.
func (String) Deserialize(data []byte) (string, error) { return string(data), nil }
