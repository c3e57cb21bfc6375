package cli

import (
	"bytes"
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTermAndHupInterruptLikeCtrlC(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT} {
		var errb bytes.Buffer
		ctx, got, stop := signalContext(context.Background(), &errb)
		require.NoError(t, syscall.Kill(syscall.Getpid(), sig))
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Second): // generous: only a lost signal takes this long
			t.Fatalf("%v did not cancel the context", sig)
		}
		assert.Equal(t, int(sig), got())
		assert.Equal(t, 128+int(sig), exitStatus(ExitInterrupted, got()))
		stop()
		assert.Contains(t, errb.String(), "stopping; the best result so far is kept")
	}
	assert.Equal(t, 143, exitStatus(ExitInterrupted, int(syscall.SIGTERM)))
	assert.Equal(t, 129, exitStatus(ExitInterrupted, int(syscall.SIGHUP)))
	assert.Equal(t, 130, exitStatus(ExitInterrupted, 0), "cancelled without a signal (a test's context)")
	assert.Equal(t, ExitBadInput, exitStatus(ExitBadInput, int(syscall.SIGTERM)), "only an interrupted command takes the signal's status")
}
