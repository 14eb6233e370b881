import FingerlockTestSupport

/// Keeps in-process runs that read a passcode from a descriptor apart from every other in-process run.
///
/// `--passcode-fd N` accepts only a descriptor without close-on-exec (one the process inherited), and
/// the CLI, before it starts a helper program (`pass`, an editor, the clipboard's clearer), marks every
/// descriptor of its process close-on-exec so none leaks into it. In the binary that process is the
/// command's own; in process it is the test runner, where another test's run could mark the pipe an
/// in-process run just made for its passcode, which then reads as "not open" (exit 64). So a run with
/// a passcode descriptor runs alone (exclusive), the others side by side (shared), first come first
/// served. One for the process: the descriptor flags it guards are the process's.
enum DescriptorGate {
    static let process = TurnTaking()
}
