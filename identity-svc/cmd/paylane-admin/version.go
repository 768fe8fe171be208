package main

import (
	"context"
	"fmt"
	"runtime/debug"
)

// buildVersion is what the binary knows of itself (debug.ReadBuildInfo).
type buildVersion struct {
	Version string `json:"version"`
	// Revision is the VCS commit it was built from; "" when the build
	// recorded none (go run, -buildvcs=false).
	Revision     string `json:"revision"`
	RevisionTime string `json:"revision_time,omitempty"`
	Modified     bool   `json:"modified"`
	GoVersion    string `json:"go_version"`
}

func readVersion() buildVersion {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return buildVersion{Version: "unknown"}
	}
	return versionOf(bi)
}

// versionOf reads the module version and the VCS settings the Go toolchain
// stamps into a binary built from a repository checkout.
func versionOf(bi *debug.BuildInfo) buildVersion {
	v := buildVersion{Version: "unknown", GoVersion: bi.GoVersion}
	if bi.Main.Version != "" {
		v.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.RevisionTime = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// String is the one line a person reads.
func (v buildVersion) String() string {
	rev := "revision unknown"
	if v.Revision != "" {
		rev = "revision " + v.Revision
		if v.RevisionTime != "" {
			rev += " (" + v.RevisionTime + ")"
		}
		if v.Modified {
			rev += ", modified"
		}
	}
	return fmt.Sprintf("paylane-admin %s, %s, %s", v.Version, rev, v.GoVersion)
}

func versionCommand(args []string) (command, error) {
	fs := newFlags("version")
	var out output
	addOutput(fs, &out)
	pos, err := parse(fs, args)
	if err != nil {
		return nil, err
	}
	if err := expectArgs("version", pos); err != nil {
		return nil, err
	}
	return func(_ context.Context, c *cli) error {
		v := readVersion()
		if c.format(out) == formatJSON && (out.format != "" || c.output.format != "") {
			return c.print(v)
		}
		// A version is a line for people unless JSON is asked for by name:
		// scripts that run `paylane-admin version` expect the line.
		_, err := fmt.Fprintln(c.stdout, v.String())
		return err
	}, nil
}
