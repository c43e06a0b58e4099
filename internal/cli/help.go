package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// errHelpShown is what a command returns when its flags asked for help and
// the help went to stdout: Run turns it into success, since the command
// did what was asked.
var errHelpShown = errors.New("help shown")

// isHelpFlag reports whether arg asks for help the way the flag package
// understands it.
func isHelpFlag(arg string) bool {
	switch arg {
	case "-h", "--h", "-help", "--help":
		return true
	}
	return false
}

const sharedFlagsNote = "Every command accepts --db (GATEHOUSE_DB, default gatehouse.db); commands that print a record accept --json."

// printUsage lists every command.
func printUsage(w io.Writer) {
	fmt.Fprintln(w, "Usage: gatehouse COMMAND [flags]\n\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-22s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\n"+sharedFlagsNote+"\nRun 'gatehouse COMMAND --help' for a command's flags.")
}

// groupCommands returns the commands whose first word is word ("org" has
// "org create" and "org list"); none when word is not a group.
func groupCommands(word string) []command {
	var group []command
	for _, c := range commands() {
		if first, _, more := strings.Cut(c.name, " "); more && first == word {
			group = append(group, c)
		}
	}
	return group
}

// printGroupUsage lists the commands of one group.
func printGroupUsage(w io.Writer, word string, group []command) {
	fmt.Fprintf(w, "Usage: gatehouse %s COMMAND [flags]\n\nCommands:\n", word)
	for _, c := range group {
		fmt.Fprintf(w, "  %-22s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "\nRun 'gatehouse %s COMMAND --help' for a command's flags.\n", word)
}

// printCommandUsage describes one command and its flags.
func printCommandUsage(w io.Writer, name string, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: gatehouse %s [flags]\n", name)
	for _, c := range commands() {
		if c.name == name {
			fmt.Fprintf(w, "\n%s\n", c.summary)
		}
	}
	fmt.Fprintln(w, "\nFlags:")
	fs.PrintDefaults()
}
