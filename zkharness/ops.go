package zkharness

import "github.com/gocurator/curator/internal/zkwire"

// Request opcodes, as ZooKeeper numbers them, for the faults and counts
// that pick requests by kind (Proxy.DropAfter, Proxy.HoldReply,
// WriteFault.FailNext, Counter.RequestsOf). go-zookeeper's Create sends
// OpCreate, Children OpGetChildren2, and Multi OpMulti; the framework's
// AddWatch sends OpAddWatch, PersistentWatch.Remove OpRemoveWatches, and
// MultiRead OpMultiRead.
const (
	OpCreate          = zkwire.OpCreate
	OpDelete          = zkwire.OpDelete
	OpExists          = zkwire.OpExists
	OpGetData         = zkwire.OpGetData
	OpSetData         = zkwire.OpSetData
	OpGetChildren     = zkwire.OpGetChildren
	OpGetChildren2    = zkwire.OpGetChildren2
	OpCheck           = zkwire.OpCheck
	OpMulti           = zkwire.OpMulti
	OpCreate2         = zkwire.OpCreate2
	OpCreateContainer = zkwire.OpCreateContainer
	OpCreateTTL       = zkwire.OpCreateTTL
	OpRemoveWatches   = zkwire.OpRemoveWatches
	OpAddWatch        = zkwire.OpAddWatch
	OpMultiRead       = zkwire.OpMultiRead
)
