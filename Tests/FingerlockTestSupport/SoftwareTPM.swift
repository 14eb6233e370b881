public import Foundation

/// A factory-fresh TPM 2.0 for one test: swtpm on Unix sockets in a state directory of its own, run
/// as an unprivileged user (`nobody` when the tests run as root), stopped cleanly (TPM2_Shutdown
/// first: an unclean stop after a DA-protected use counts as one more failed authorization).
/// tpm2-tools act on it as an administrator would (dictionary parameters, PCR extends, a clear).
public final class SoftwareTPM: @unchecked Sendable {
    // Invariant: `stopped` is only touched by `stop()`, which tests call once from one task (and
    // deinit, after every other use).
    public let directory: URL
    public let tcti: String
    private var stopped = false
    private let process = Process()

    /// Starts swtpm in a new directory under `parent` (so a test can copy or reuse the state).
    public init(in parent: URL = FileManager.default.temporaryDirectory, state existing: URL? = nil) throws {
        // tpm2-tss logs every refusal on stderr; the tests read the TPM's answers themselves.
        setenv("TSS2_LOG", "all+none", 0)
        directory = existing ?? parent.appendingPathComponent("swtpm-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let socket = directory.appendingPathComponent("sock").path
        tcti = "swtpm:path=\(socket)"
        var command = [
            "swtpm", "socket", "--tpm2", "--tpmstate", "dir=\(directory.path)",
            "--server", "type=unixio,path=\(socket)", "--ctrl", "type=unixio,path=\(socket).ctrl",
            "--flags", "startup-clear",
        ]
        if geteuid() == 0 {
            // As nobody, the way CI runs it; root (the tests) can still use its sockets.
            _ = try Self.run(["chown", "-R", "65534:65534", directory.path])
            _ = try Self.run(["chmod", "0755", directory.path])
            command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + command
        }
        // In the foreground, as a child this object keeps (a daemonizing swtpm leaves a process
        // Foundation never reaps); its output to a file.
        let log = directory.appendingPathComponent("swtpm.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        defer { try? handle.close() }
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Both sockets: swtpm makes the control one first, and a client that connects to the server
        // socket before it exists gets "tcti:IO failure" (seen on a busy CI machine).
        func listening() -> Bool { [socket, socket + ".ctrl"].allSatisfy { FileManager.default.fileExists(atPath: $0) } }
        for _ in 0..<2000 where !listening() && process.isRunning { usleep(10_000) }
        guard process.isRunning, listening() else {
            throw Failure("swtpm did not start: " + ((try? String(contentsOf: log, encoding: .utf8)) ?? ""))
        }
    }

    deinit { stop() }

    /// TPM2_Shutdown(CLEAR), then swtpm's own stop: the next start finds an orderly TPM.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        _ = try? tool(["tpm2_shutdown", "-c"])
        _ = try? Self.run(["swtpm_ioctl", "--unix", directory.appendingPathComponent("sock.ctrl").path, "-s"])
        for _ in 0..<300 where process.isRunning { usleep(10_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    /// Runs a tpm2-tools command on this TPM; throws with its output when it fails.
    @discardableResult
    public func tool(_ arguments: [String]) throws -> String {
        let (status, output) = try Self.run(["env", "TPM2TOOLS_TCTI=\(tcti)", "TSS2_LOG=all+none"] + arguments)
        guard status == 0 else { throw Failure("\(arguments.joined(separator: " ")): \(output)") }
        return output
    }

    /// Dictionary-attack parameters (the lockout password is empty on a fresh swtpm).
    public func setDictionaryParameters(maximumTries: Int, interval: Int, recovery: Int) throws {
        try tool(["tpm2_dictionarylockout", "-s", "-n", "\(maximumTries)", "-t", "\(interval)", "-l", "\(recovery)"])
    }

    /// `TPM2_PT_LOCKOUT_COUNTER` as tpm2-tools read it.
    public func lockoutCounter() throws -> Int {
        try property("TPM2_PT_LOCKOUT_COUNTER")
    }

    public func inLockout() throws -> Bool {
        try property("inLockout") != 0
    }

    private func property(_ name: String) throws -> Int {
        let output = try tool(["tpm2_getcap", "properties-variable"])
        let lines = output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let index = lines.firstIndex(where: { $0.hasPrefix(name + ":") }) else { throw Failure("no \(name) in \(output)") }
        var value = lines[index].dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces)
        if value.isEmpty, index + 1 < lines.count {
            value = lines[index + 1].replacingOccurrences(of: "raw:", with: "").trimmingCharacters(in: .whitespaces)
        }
        if value.hasPrefix("0x") { return Int(value.dropFirst(2), radix: 16) ?? -1 }
        return Int(value) ?? -1
    }

    /// Extends PCR 7 (sha256) as a firmware or Secure Boot change would.
    public func extendPCR7() throws {
        try tool(["tpm2_pcrextend", "7:sha256=" + String(repeating: "ab", count: 32)])
    }

    /// TPM2_Clear through the lockout hierarchy: new owner seed, every sealed object gone.
    public func clear() throws {
        try tool(["tpm2_clear", "-c", "l"])
    }

    /// Runs a command to completion, its output through a file: a pipe could be inherited by a
    /// swtpm daemon another test starts meanwhile, and then never reach its end.
    @discardableResult
    static func run(_ arguments: [String]) throws -> (Int32, String) {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("swtpm-run-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let handle = try FileHandle(forWritingTo: output)
        defer { try? handle.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus, (try? String(contentsOf: output, encoding: .utf8)) ?? "")
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}

extension SoftwareTPM {
    /// Opens the TPM's sockets to every local user: a test's service user or login users reach it
    /// as they would reach /dev/tpmrm0 through group tss.
    public func openToEveryone() {
        for socket in ["sock", "sock.ctrl"] { chmod(directory.appendingPathComponent(socket).path, 0o666) }
    }
}

extension SoftwareTPM {
    /// One failed authorization of a DA-protected object of another program's (tpm2-tools'): what
    /// disk unlock or any other user of the TPM adds to the counter fingerlock shares.
    public func failAnAuthorization() throws {
        let path = directory.path
        try tool(["tpm2_createprimary", "-C", "o", "-c", "\(path)/other-primary.ctx"])
        try tool(["tpm2_flushcontext", "-t"])
        if !FileManager.default.fileExists(atPath: "\(path)/other.pub") {
            try Data("another program's secret".utf8).write(to: directory.appendingPathComponent("other-secret"))
            try tool([
                "tpm2_create", "-C", "\(path)/other-primary.ctx", "-i", "\(path)/other-secret", "-p", "right",
                "-u", "\(path)/other.pub", "-r", "\(path)/other.priv",
            ])
            try tool(["tpm2_flushcontext", "-t"])
        }
        try tool(["tpm2_load", "-C", "\(path)/other-primary.ctx", "-u", "\(path)/other.pub", "-r", "\(path)/other.priv", "-c", "\(path)/other.ctx"])
        _ = try? tool(["tpm2_unseal", "-c", "\(path)/other.ctx", "-p", "wrong"])
        try tool(["tpm2_flushcontext", "-t"])
    }

    /// Loads three objects and leaves them loaded, as a program killed mid-work does on a TPM without
    /// a resource manager (swtpm, /dev/tpm0): the TPM has no room for another.
    public func fillObjectMemory() throws {
        for index in 0..<3 { try tool(["tpm2_createprimary", "-C", "o", "-c", directory.appendingPathComponent("fill-\(index).ctx").path]) }
    }

    /// Flushes every loaded object and session (`tpm2_flushcontext -t -s`).
    public func flushEverything() throws {
        try tool(["tpm2_flushcontext", "-t"])
        try tool(["tpm2_flushcontext", "-s"])
    }
}
