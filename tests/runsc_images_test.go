package tests

import (
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"gotest.tools/v3/assert"
)

// onSecond records, per image ID, the one attempt to move that image onto
// the second engine: the suite builds its images on the machine's engine,
// and the second one starts with the reference image alone.
var (
	onSecondMu sync.Mutex
	onSecond   = map[string]*imageMove{}
)

type imageMove struct {
	once sync.Once
	err  error
}

// imageOnSecond gives the second engine the image by ID, unchanged
// (docker save and load keep the ID), once per image for the whole suite.
func imageOnSecond(t *testing.T, e *secondEngine, id string) {
	t.Helper()
	onSecondMu.Lock()
	m, ok := onSecond[id]
	if !ok {
		m = &imageMove{}
		onSecond[id] = m
	}
	onSecondMu.Unlock()
	m.once.Do(func() { m.err = moveImage(e, id) })
	assert.NilError(t, m.err)
}

func moveImage(e *secondEngine, id string) error {
	if got, err := e.docker("image", "inspect", "--format", "{{.Id}}", id); err == nil && strings.TrimSpace(string(got)) == id {
		return nil
	}
	save := exec.Command("docker", "save", id)
	load := exec.Command("docker", "--host", "unix://"+e.sock, "load", "--quiet")
	pipe, err := save.StdoutPipe()
	if err != nil {
		return err
	}
	load.Stdin = pipe
	if err := save.Start(); err != nil {
		return err
	}
	out, lerr := load.CombinedOutput()
	serr := save.Wait()
	if lerr != nil || serr != nil {
		return fmt.Errorf("moving %s to the second engine: save %v, load %v: %s", id, serr, lerr, out)
	}
	got, err := e.docker("image", "inspect", "--format", "{{.Id}}", id)
	if err != nil || strings.TrimSpace(string(got)) != id {
		return fmt.Errorf("the second engine has no %s after load: %v %s", id, err, got)
	}
	return nil
}
