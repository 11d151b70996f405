//go:build !linux

package readonly

import "testing"

// mount is Linux's; elsewhere root gets no read-only media.
func mount(t testing.TB, src string) string {
	t.Skip("SKIPPED: read-only media for root are a Linux bind mount")
	return ""
}
