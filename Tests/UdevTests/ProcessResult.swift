import FingerlockTestSupport
import Foundation

/// The outcome of running a program to completion.
struct ProcessResult: Sendable {
    var status: Int32
    var stdout: String
    var stderr: String

    /// Runs `executable` (looked up on PATH through /usr/bin/env) with `arguments`, waiting for it
    /// by sleeping: its output goes through files, so no thread of the cooperative pool blocks on a
    /// pipe or on the exit.
    static func run(
        _ executable: String, _ arguments: [String], in directory: URL? = nil,
        environment: [String: String]? = nil
    ) async throws -> ProcessResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [executable] + arguments
        if let directory { process.currentDirectoryURL = directory }
        if let environment { process.environment = environment }
        let outPath = FileManager.default.temporaryDirectory.path + "/udev-tests-\(UUID().uuidString).out"
        let errPath = outPath + ".err"
        for path in [outPath, errPath] { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        defer { for path in [outPath, errPath] { try? FileManager.default.removeItem(atPath: path) } }
        process.standardOutput = FileHandle(forWritingAtPath: outPath)
        process.standardError = FileHandle(forWritingAtPath: errPath)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // The child has its own copies: the Process would keep these open past its end.
        try? (process.standardOutput as? FileHandle)?.close()
        try? (process.standardError as? FileHandle)?.close()
        try await process.waitForExit()
        func text(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
        return ProcessResult(status: process.terminationStatus, stdout: text(outPath), stderr: text(errPath))
    }
}
