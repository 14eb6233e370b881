#if canImport(Glibc)
    import Glibc
#endif

/// What standard input is, which decides whether it carries a note body. Only something piped or
/// redirected from a file does: a script run with `</dev/null` (cron, systemd, CI) or any other
/// device must never have its nothing taken for an empty body, and a device such as `/dev/zero`
/// is never read.
enum StandardInputKind: Equatable, Sendable {
    case terminal
    /// A pipe, a socket or a regular file.
    case piped
    /// `/dev/null` or another device.
    case device

    var carriesBody: Bool { self == .piped }

    /// The kind of `input`; an injected source that is not a descriptor counts as piped unless it
    /// is a terminal.
    init(_ input: any InputSource) {
        guard let descriptor = input as? FileDescriptorInput else {
            self = input.isTerminal ? .terminal : .piped
            return
        }
        self.init(fd: descriptor.fd)
    }

    init(fd: Int32) {
        if isatty(fd) == 1 {
            self = .terminal
            return
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            // A closed stdin holds no body.
            self = .device
            return
        }
        switch info.st_mode & S_IFMT {
        case S_IFIFO, S_IFSOCK, S_IFREG: self = .piped
        default: self = .device
        }
    }
}
