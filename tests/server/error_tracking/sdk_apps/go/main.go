// A small app reporting to Outpost with sentry-go (Debian's 0.11.0, store endpoint): `go run main.go DSN`.
// An error made in chargeCard (github.com/pkg/errors records the stack there) is captured, then a
// warning message.
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/getsentry/sentry-go"
	"github.com/pkg/errors"
)

func chargeCard(amount int) error {
	return errors.Errorf("card declined for %d", amount)
}

func checkout() error {
	return chargeCard(42)
}

func main() {
	err := sentry.Init(sentry.ClientOptions{Dsn: os.Args[1], Release: "shop-go@1.0.0", Environment: "production"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if err := checkout(); err != nil {
		sentry.CaptureException(err)
	}
	sentry.WithScope(func(scope *sentry.Scope) {
		scope.SetLevel(sentry.LevelWarning)
		sentry.CaptureMessage("queue backlog")
	})
	if !sentry.Flush(10 * time.Second) {
		fmt.Fprintln(os.Stderr, "events not sent in time")
		os.Exit(1)
	}
}
