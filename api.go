package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/rynek/rynek/internal/httpapi"
)

// apiFlags are the HTTP API's flags, shared by the console and serve (each
// has its own --api).
type apiFlags struct {
	fs      *flag.FlagSet
	token   string
	origins listFlag
	rate    float64
	// maxStreams and maxStreamsPerClient cap the event streams open at
	// once, of all clients and of one.
	maxStreams          int
	maxStreamsPerClient int
}

// mostStreams is the most --api-max-streams allows: each stream holds a
// connection and 26–45 KiB, so 100,000 take 2.5–4.3 GiB.
const mostStreams = 100_000

// listFlag is a flag that may be given several times.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func addAPIFlags(fs *flag.FlagSet) *apiFlags {
	f := &apiFlags{fs: fs}
	fs.StringVar(&f.token, "api-token", "", "require Authorization: Bearer TOKEN of every API request (or set "+httpapi.TokenEnv+"); needed to listen beyond loopback")
	fs.Var(&f.origins, "api-cors-origin", "an origin allowed to read the API from a browser, e.g. https://example.com (repeatable)")
	fs.Float64Var(&f.rate, "api-rate", httpapi.DefaultRate, "requests a second allowed per client IP, with bursts of twice that (0: no limit)")
	fs.IntVar(&f.maxStreams, "api-max-streams", httpapi.DefaultMaxStreams, "event streams (/api/events) open at once; one more is refused with 429 too-many-streams")
	fs.IntVar(&f.maxStreamsPerClient, "api-max-streams-per-client", httpapi.DefaultMaxStreamsPerClient, "event streams one client IP may hold open at once (no such cap with --api-rate 0)")
	return f
}

// options checks the flags and turns them into the options of an API at
// addr ("" for none: the console without --api); the environment variable
// supplies the token when the flag does not. A usage error (an API that
// would be open to other machines without a token, said after cmd) is exit
// code 2.
func (f *apiFlags) options(cmd, addr string, stderr io.Writer) (httpapi.Options, int) {
	token := f.token
	if token == "" {
		token = os.Getenv(httpapi.TokenEnv)
	}
	if f.rate < 0 {
		fmt.Fprintf(stderr, "rynek: --api-rate must be 0 or more, got %g\n", f.rate)
		return httpapi.Options{}, 2
	}
	for _, o := range f.origins {
		if !strings.HasPrefix(o, "http://") && !strings.HasPrefix(o, "https://") || strings.HasSuffix(o, "/") {
			fmt.Fprintf(stderr, "rynek: --api-cors-origin %q is not an origin (scheme://host[:port], no path)\n", o)
			return httpapi.Options{}, 2
		}
	}
	perClient, perClientGiven := f.maxStreamsPerClient, flagGiven(f.fs, "api-max-streams-per-client")
	if !perClientGiven {
		perClient = min(perClient, f.maxStreams) // the default, under a smaller cap of all
	}
	switch {
	case f.maxStreams < 1 || f.maxStreams > mostStreams:
		fmt.Fprintf(stderr, "rynek: --api-max-streams must be between 1 and %d, got %d\n", mostStreams, f.maxStreams)
		return httpapi.Options{}, 2
	case perClient < 1 || perClient > f.maxStreams:
		fmt.Fprintf(stderr, "rynek: --api-max-streams-per-client must be between 1 and --api-max-streams (%d), got %d\n", f.maxStreams, perClient)
		return httpapi.Options{}, 2
	case f.rate == 0 && perClientGiven:
		// The API counts a client's streams only with the rate limit on.
		fmt.Fprintln(stderr, "rynek: --api-max-streams-per-client needs the rate limit: with --api-rate 0 clients are not told apart (behind a reverse proxy each has the proxy's address), so no client has a cap of its own")
		return httpapi.Options{}, 2
	}
	if addr != "" {
		if err := httpapi.CheckExposure(addr, token); err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
			return httpapi.Options{}, 2
		}
	}
	return httpapi.Options{Token: token, CORSOrigins: f.origins, RatePerSecond: f.rate,
		MaxStreams: f.maxStreams, MaxStreamsPerClient: perClient}, 0
}

// stopAPI shuts the API down: it stops listening, ends the event streams
// and waits up to 5 s for the answers in progress.
func stopAPI(api *httpapi.Running) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return api.Shutdown(ctx)
}
