package main

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
)

// cpuProfileEnv names the file a CPU profile of the whole run is written
// to, for finding what the main thread spends its ticks on. It is an
// environment variable, not a flag: it is a tool for the people who tune
// the program, and every command honours it. rynek serve labels its main
// loop loop=main, so `go tool pprof -tagfocus loop=main` shows the
// main thread's work apart from the readers', the bots' searches aside.
const cpuProfileEnv = "RYNEK_CPUPROFILE"

// startCPUProfile starts the profile when the environment asks for one and
// returns what stops it; a profile that cannot be started is said and the
// command runs without it.
func startCPUProfile(stderr io.Writer) (stop func()) {
	path := os.Getenv(cpuProfileEnv)
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
		if err != nil {
			f.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "rynek: no CPU profile (%s=%s): %v\n", cpuProfileEnv, path, err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintf(stderr, "rynek: the CPU profile %s: %v\n", path, err)
		}
	}
}
