package isolation_test

import (
	"context"
	"fmt"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// Run needs a Docker engine and the runtime image (scripts/build-image.sh
// prints its ID), so this example is compiled but not run.
func ExampleRun() {
	res, err := isolation.Run(context.Background(), isolation.Request{Source: "print('hi')\n1+2"}, isolation.Options{
		Image:  "sha256:5639f163879c656d4088126ef1feff4b275734aa0df6ead6af267db505863df7",
		Limits: limits.Config{Memory: 256 << 20, Timeout: 5 * time.Second},
	})
	if err != nil {
		// The error is an *isolation.Error: errors.As gives its Verdict.
		fmt.Println(res.Verdict, err)
		return
	}
	fmt.Printf("%s %s %q\n", res.Verdict, res.Result, res.Output) // ok 3 "hi\n"
}
