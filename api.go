package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rynek/rynek/internal/httpapi"
)

// apiFlags are the HTTP API's flags.
type apiFlags struct {
	token   *string
	origins *listFlag
	rate    *float64
}

// listFlag is a flag that may be given several times.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func addAPIFlags(fs *flag.FlagSet) apiFlags {
	f := apiFlags{origins: &listFlag{}}
	f.token = fs.String("api-token", "", "require Authorization: Bearer TOKEN of every API request (or set "+httpapi.TokenEnv+"); needed to listen beyond loopback")
	fs.Var(f.origins, "api-cors-origin", "an origin allowed to read the API from a browser, e.g. https://example.com (repeatable)")
	f.rate = fs.Float64("api-rate", httpapi.DefaultRate, "requests a second allowed per client IP, with bursts of twice that (0: no limit)")
	return f
}

// options turns the flags into the API's options; the environment
// variable supplies the token when the flag does not.
func (f apiFlags) options(stderr io.Writer) (httpapi.Options, int) {
	token := *f.token
	if token == "" {
		token = os.Getenv(httpapi.TokenEnv)
	}
	if *f.rate < 0 {
		fmt.Fprintf(stderr, "rynek: --api-rate must be 0 or more, got %g\n", *f.rate)
		return httpapi.Options{}, 2
	}
	for _, o := range *f.origins {
		if !strings.HasPrefix(o, "http://") && !strings.HasPrefix(o, "https://") || strings.HasSuffix(o, "/") {
			fmt.Fprintf(stderr, "rynek: --api-cors-origin %q is not an origin (scheme://host[:port], no path)\n", o)
			return httpapi.Options{}, 2
		}
	}
	return httpapi.Options{Token: token, CORSOrigins: *f.origins, RatePerSecond: *f.rate}, 0
}
