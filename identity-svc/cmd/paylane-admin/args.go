package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// newFlags returns a flag set that reports errors instead of exiting.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parse parses args with flags and positional arguments in any order and
// returns the positional ones.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, usageError(fmt.Errorf("%s: %w", fs.Name(), err))
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// expectArgs checks the number of positional arguments.
func expectArgs(cmd string, got []string, names ...string) error {
	if len(got) != len(names) {
		want := "no arguments"
		if len(names) > 0 {
			want = strings.Join(names, " ")
		}
		return usageError(fmt.Errorf("%s takes %s, got %q", cmd, want, got))
	}
	return nil
}

// isSet reports whether the flag was given on the command line.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}

// required reports an empty required flag.
func required(cmd, flagName, value string) error {
	if strings.TrimSpace(value) == "" {
		return usageError(fmt.Errorf("%s needs --%s", cmd, flagName))
	}
	return nil
}
