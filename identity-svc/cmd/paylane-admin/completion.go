package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// globalFlags are the flags before the command.
func globalFlags() []string {
	return []string{"--config", "--admin-url", "--admin-token", "--ca-file", "--output", "--help", "--version"}
}

// valueFlags are the global flags that take a value: the completion skips
// it when it looks for the command.
func valueFlags() []string {
	return []string{"--config", "--admin-url", "--admin-token", "--ca-file", "--output", "-o"}
}

// completion is the words offered after a command and subcommand.
type completion struct {
	cmd, sub string
	words    []string
}

// completions are the words of every command: the subcommands, and the
// flags each command's own flag set defines (read from it, so a new flag
// is offered without a change here).
func completions() []completion {
	out := []completion{
		{"", "", []string{"tenants", "tokens", "users", "messages", "version", "completion", "help"}},
		{"completion", "", []string{"bash", "zsh"}},
	}
	for _, g := range []struct {
		cmd  string
		subs []string
	}{{"tenants", []string{"create", "update", "list", "show"}}, {"tokens", []string{"create", "list", "revoke"}},
		{"users", []string{"create", "list", "disable"}}, {"messages", nil}, {"version", nil}} {
		if len(g.subs) > 0 {
			out = append(out, completion{g.cmd, "", g.subs})
		} else {
			out = append(out, completion{g.cmd, "", flagsOf(g.cmd)})
		}
		for _, sub := range g.subs {
			out = append(out, completion{g.cmd, sub, flagsOf(g.cmd, sub)})
		}
	}
	return out
}

// flagsOf lists the flags of a command (and subcommand) as --name, asking
// its parser for help and reading the flag set that answers.
func flagsOf(cmd string, sub ...string) []string {
	args := append(append([]string{}, sub...), "--help")
	var err error
	if cmd == "version" {
		_, err = versionCommand(args)
	} else {
		_, err = lookup(cmd, args)
	}
	var help *helpRequest
	if !errors.As(err, &help) {
		return nil
	}
	var out []string
	help.fs.VisitAll(func(f *flag.Flag) {
		if len(f.Name) > 1 {
			out = append(out, "--"+f.Name)
		}
	})
	return out
}

func completionCommand(args []string) (command, error) {
	pos, err := parse(newFlags("completion"), args)
	if err != nil {
		return nil, err
	}
	if len(pos) != 1 || (pos[0] != "bash" && pos[0] != "zsh") {
		return nil, usageError(fmt.Errorf("completion takes bash or zsh, got %q", pos))
	}
	shell := pos[0]
	return func(_ context.Context, c *cli) error {
		return writeCompletion(c.stdout, shell)
	}, nil
}

// wordsFunction is _paylane_admin_words CMD SUB, printing the words to
// offer: shell code that bash and zsh both read.
func wordsFunction() string {
	var b strings.Builder
	b.WriteString("_paylane_admin_words() {\n    case \"$1/$2\" in\n")
	for _, c := range completions() {
		words := c.words
		if c.cmd == "" {
			words = append(words, globalFlags()...)
		}
		fmt.Fprintf(&b, "        %q) echo %q ;;\n", c.cmd+"/"+c.sub, strings.Join(words, " "))
	}
	// A command that takes no subcommand offers its flags after arguments.
	b.WriteString("        messages/*) _paylane_admin_words messages \"\" ;;\n")
	b.WriteString("        version/*) _paylane_admin_words version \"\" ;;\n")
	b.WriteString("    esac\n}\n")
	return b.String()
}

// scanFunction finds the command and subcommand among the words before the
// cursor, skipping flags and the values of valueFlags.
func scanFunction(shell string) string {
	first, words := "1", "COMP_WORDS[i]"
	if shell == "zsh" {
		first, words = "2", "words[i]"
	}
	return fmt.Sprintf(`_paylane_admin_scan() {
    local i w skip=""
    _pa_cmd="" _pa_sub=""
    for ((i = %s; i < $1; i++)); do
        w="${%s}"
        if [[ -n $skip ]]; then skip=""; continue; fi
        case "$w" in
            %s) skip=1; continue ;;
            -*) continue ;;
        esac
        if [[ -z $_pa_cmd ]]; then _pa_cmd=$w
        elif [[ -z $_pa_sub ]]; then _pa_sub=$w
        fi
    done
}
`, first, words, strings.Join(valueFlags(), "|"))
}

func writeCompletion(w io.Writer, shell string) error {
	var b strings.Builder
	if shell == "zsh" {
		b.WriteString("#compdef paylane-admin\n# zsh completion for paylane-admin. Load it with:\n#   source <(paylane-admin completion zsh)\n# or save it as _paylane-admin in a directory of $fpath.\n\n")
	} else {
		b.WriteString("# bash completion for paylane-admin. Load it with:\n#   source <(paylane-admin completion bash)\n# or save it in /etc/bash_completion.d/paylane-admin.\n\n")
	}
	b.WriteString(wordsFunction())
	b.WriteString(scanFunction(shell))
	if shell == "zsh" {
		b.WriteString(`_paylane_admin() {
    local _pa_cmd _pa_sub
    case "${words[CURRENT-1]}" in
        --output|-o) compadd json table; return ;;
        --config|--ca-file) _files; return ;;
    esac
    _paylane_admin_scan $CURRENT
    compadd -- ${=$(_paylane_admin_words "$_pa_cmd" "$_pa_sub")}
}

if [[ "$funcstack[1]" == "_paylane_admin" ]]; then
    _paylane_admin "$@"
else
    compdef _paylane_admin paylane-admin
fi
`)
	} else {
		b.WriteString(`_paylane_admin() {
    local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}" _pa_cmd _pa_sub
    case "$prev" in
        --output|-o) COMPREPLY=($(compgen -W "json table" -- "$cur")); return ;;
        --config|--ca-file) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    esac
    _paylane_admin_scan "$COMP_CWORD"
    COMPREPLY=($(compgen -W "$(_paylane_admin_words "$_pa_cmd" "$_pa_sub")" -- "$cur"))
}

complete -F _paylane_admin paylane-admin
`)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
