/// Starts helper programs (`pass`, `wl-copy`, `xclip`, `xsel`, the clipboard clearer). A seam so
/// the executable alone decides how processes are made; commands never spawn on their own.
///
/// Secrets travel only through pipes: an implementation never puts `input` in argv or the
/// environment, and never on disk.
public protocol ChildProcessRunner: Sendable {
    /// Runs `executable` with stdin at `/dev/null` and returns its exit status and what it wrote on
    /// stdout and stderr, read until both are closed. Past `outputLimit` bytes of stdout, reading
    /// stops, the program is killed and `exceededLimit` is set; stderr keeps its first 64 KiB.
    func capture(_ executable: String, _ arguments: [String], environment: [String: String], outputLimit: Int) throws
        -> ChildProcessOutput

    /// Runs `executable` with `input` on a pipe as its stdin and stdout and stderr at `/dev/null`,
    /// and waits for it (not for any background process it forks, as `xclip` and `wl-copy` do).
    /// Returns its exit status (-1 when killed by a signal).
    func feed(_ executable: String, _ arguments: [String], environment: [String: String], input: [UInt8]) throws -> Int32

    /// Runs a picker (fzf, rofi, dmenu): `input` on a pipe as its stdin, its stdout captured as
    /// `capture` does, and stderr left as this process's (an interactive picker draws and reads
    /// keys on the terminal). Input and output move together, so a picker that answers before
    /// reading everything does not stall.
    func choose(_ executable: String, _ arguments: [String], environment: [String: String], input: [UInt8], outputLimit: Int) throws
        -> ChildProcessOutput

    /// Starts `executable` in a session of its own with `input` on a pipe as its stdin, stdout and
    /// stderr at `/dev/null`, and does not wait: it outlives this process and a closed terminal.
    func detach(_ executable: String, _ arguments: [String], environment: [String: String], input: [UInt8]) throws

    /// Starts polkit's text agent for this process at its terminal and waits until it is
    /// registered; nil when none was started (no pkttyagent, polkit refused it). fprintd's
    /// enrollment then asks the login password on the terminal the command runs at.
    func startPolkitAgent(environment: [String: String]) -> (any PolkitAgent)?
}

/// A polkit agent this process started; ``stop()`` ends it.
public protocol PolkitAgent: Sendable {
    func stop()
}

extension ChildProcessRunner {
    /// Runners that run no real programs start no agent.
    public func startPolkitAgent(environment: [String: String]) -> (any PolkitAgent)? { nil }
}

/// What a captured program left.
public struct ChildProcessOutput: Sendable, Equatable {
    /// The exit status; -1 when it was killed by a signal.
    public var status: Int32
    public var stdout: [UInt8]
    public var stderr: [UInt8]
    /// Whether stdout went on past the limit (then cut there, and the program killed).
    public var exceededLimit: Bool

    public init(status: Int32, stdout: [UInt8], stderr: [UInt8], exceededLimit: Bool = false) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
        self.exceededLimit = exceededLimit
    }

    /// The first line of stderr, for a one-line error message.
    public var firstErrorLine: String {
        String(decoding: stderr, as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
    }
}
