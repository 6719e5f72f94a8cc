package retry_test

import (
	"context"
	"fmt"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/retry"
)

func ExampleDo() {
	attempts := 0
	err := retry.Do(context.Background(), retry.ExponentialBackoffRetry(time.Millisecond, 3),
		func(ctx context.Context) error {
			attempts++
			if attempts < 3 {
				return framework.ErrConnectionLoss // retryable: the loop tries again
			}
			return nil
		})
	fmt.Println(attempts, err)
	// Output: 3 <nil>
}
