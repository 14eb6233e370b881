# Finishes the man page swift-argument-parser writes (on stdin): the options every command takes
# are listed once, at the top, instead of under each of the 40 commands, and its closing
# `.Sh "EXIT STATUS"` / `.Ex -std` makes way for the hand-written sections in the file `sections`
# (EXIT STATUS as a table, ENVIRONMENT, FILES, EXAMPLES, SEE ALSO).
#   awk -v sections=docs/man/fingerlock.1.sections -f scripts/finish-manual.awk
BEGIN {
    split(".It Fl -reader Ar reader|.It Fl -data-dir Ar dir|.It Fl -socket Ar path|.It Fl -version|.It Fl h , -help", globals, "|")
    for (i in globals) global[globals[i]] = 1
    if (sections == "") { print "finish-manual: no sections file given" > "/dev/stderr"; failed = 1; exit 2 }
}
# A global option already listed: drop it and its one line of help.
($0 in global) && seen[$0]++ { skip = 1; next }
skip { skip = 0; next }
$0 == ".Sh \"EXIT STATUS\"" {
    while ((getline line < sections) > 0) print line
    if (close(sections) != 0) { print "finish-manual: cannot read " sections > "/dev/stderr"; failed = 1; exit 2 }
    done = 1
    exit
}
{ print }
END {
    if (!done && !failed) { print "finish-manual: no EXIT STATUS section to replace" > "/dev/stderr"; exit 2 }
}
