package eval

import (
	"os"
	"strings"
)

// loadAverage returns the machine's one-minute load average as Linux
// reports it (/proc/loadavg), or "" where it is not available. The
// studies record it next to their wall-clock times.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return ""
	}
	return f[0]
}
