// Package supervisor is what lies below the library's API for one run:
// its plan (Plan), the `docker run` it starts with its stdin open
// (Launch), the handshake that judges the runner's hello before a byte
// of the request is sent (Launched.Handshake), the request and the host's
// deadline (Launched.Send), the end that removes the container and
// confirms it gone (Launched.Teardown), and the two tables of rules that
// decide the run's verdict from what it learned: a run that sent its
// request (Launched.Decide) and one whose hello did not pass (inside Launched.Handshake).
// Nothing here builds a Result; package isolation does, from these.
package supervisor
