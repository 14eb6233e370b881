/// A command that has given its answer and ends with a status other than 0 but no error message:
/// `notes search` with no hit exits 1, as grep does.
struct QuietExit: Error {
    let status: ExitStatus
}
