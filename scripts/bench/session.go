package main

import (
	"bufio"
	"io"
	"os/exec"
	"time"
)

// session is one running `batch`, fed one request line at a time.
type session struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Reader
}

// startSession starts `tool batch` with args.
func startSession(tool string, args ...string) (*session, error) {
	cmd := exec.Command(tool, append([]string{"batch"}, args...)...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &session{cmd: cmd, stdin: stdin, out: bufio.NewReader(out)}, nil
}

// ask writes one request line and returns its result line and the
// latency from outside the tool: request written to result line read, in
// milliseconds.
func (s *session) ask(req []byte) (line string, ms float64, err error) {
	start := time.Now()
	if _, err := s.stdin.Write(append(req, '\n')); err != nil {
		return "", 0, err
	}
	line, err = s.out.ReadString('\n')
	return line, float64(time.Since(start).Microseconds()) / 1000, err
}

// close ends the input and waits for the batch to exit.
func (s *session) close() {
	s.stdin.Close()
	_ = s.cmd.Wait()
}
