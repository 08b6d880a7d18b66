package main

import (
	"fmt"
	"io"
)

// runOutputs are the files ptxkit run draws pictures to. They are created
// before the run, so that a path that cannot be written is reported
// before a long emulation rather than after it.
type runOutputs struct {
	timeline io.WriteCloser // --timeline
	tmem     io.WriteCloser // --tmem-svg
}

// openOutputs creates the files of --timeline and --tmem-svg.
func (o *runOptions) openOutputs() error {
	open := func(flag, path string) (io.WriteCloser, error) {
		if path == "" {
			return nil, nil
		}
		f, err := createOutput(path)
		if err != nil {
			return nil, fmt.Errorf("--%s: %v", flag, err)
		}
		return f, nil
	}
	var err error
	if o.outs.timeline, err = open("timeline", o.timeline); err != nil {
		return err
	}
	if o.outs.tmem, err = open("tmem-svg", o.tmemSVG); err != nil {
		o.outs.closeAll()
		return err
	}
	return nil
}

// closeAll closes the files that are still open (a run that failed
// before writing them).
func (r *runOutputs) closeAll() {
	for _, f := range []*io.WriteCloser{&r.timeline, &r.tmem} {
		if *f != nil {
			(*f).Close()
			*f = nil
		}
	}
}
