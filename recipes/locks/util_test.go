package locks_test

import (
	"errors"

	"github.com/gocurator/curator/framework"
)

func isNoNode(err error) bool { return errors.Is(err, framework.ErrNoNode) }
