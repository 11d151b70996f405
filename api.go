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
	token   string
	origins listFlag
	rate    float64
}

// listFlag is a flag that may be given several times.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func addAPIFlags(fs *flag.FlagSet) *apiFlags {
	f := &apiFlags{}
	fs.StringVar(&f.token, "api-token", "", "require Authorization: Bearer TOKEN of every API request (or set "+httpapi.TokenEnv+"); needed to listen beyond loopback")
	fs.Var(&f.origins, "api-cors-origin", "an origin allowed to read the API from a browser, e.g. https://example.com (repeatable)")
	fs.Float64Var(&f.rate, "api-rate", httpapi.DefaultRate, "requests a second allowed per client IP, with bursts of twice that (0: no limit)")
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
	if addr != "" {
		if err := httpapi.CheckExposure(addr, token); err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
			return httpapi.Options{}, 2
		}
	}
	return httpapi.Options{Token: token, CORSOrigins: f.origins, RatePerSecond: f.rate}, 0
}

// stopAPI shuts the API down: it stops listening, ends the event streams
// and waits up to 5 s for the answers in progress.
func stopAPI(api *httpapi.Running) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return api.Shutdown(ctx)
}
