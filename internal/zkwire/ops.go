package zkwire

// Request opcodes, as ZooKeeper's OpCode class numbers them.
const (
	OpCreate          int32 = 1
	OpDelete          int32 = 2
	OpExists          int32 = 3
	OpGetData         int32 = 4
	OpSetData         int32 = 5
	OpGetChildren     int32 = 8
	OpPing            int32 = 11
	OpGetChildren2    int32 = 12
	OpCheck           int32 = 13
	OpMulti           int32 = 14
	OpCreate2         int32 = 15
	OpCreateContainer int32 = 19
	OpCreateTTL       int32 = 21
	OpCloseSession    int32 = -11
	OpSetWatches      int32 = 101
)

// OpSetAuth is the opcode of an auth request (go-zookeeper sends one per
// credential again after every reconnect, before its other requests).
const OpSetAuth int32 = 100
