import FingerlockCLITestSupport
import Foundation
import Testing

extension BinaryRunner {
    /// Runs `fingerlock ARGUMENTS` with stdin opened from `path` — `/dev/null` or a regular file, as
    /// a cron job or `< file` would — instead of the pipe `run` gives it.
    func run(
        _ arguments: [String], environment extra: [String: String] = [:], stdinFrom path: String, timeout: Duration = .seconds(60)
    ) async throws -> Result {
        let input = try #require(FileHandle(forReadingAtPath: path))
        defer { try? input.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        process.arguments = ["--wait", Self.binaryPath] + arguments
        process.environment = environment.merging(extra) { $1 }
        let output = Pipe()
        let error = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = error
        try process.run()
        return try await finish(process, Collector(output: output, error: error), arguments: arguments, timeout: timeout)
    }
}
