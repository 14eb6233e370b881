import Foundation

/// A child process with an explicit environment and captured standard output.
struct ChildProcess {
    let process: Process
    let output: Pipe

    /// An executable built next to the test bundle (`.build/<config>/NAME`).
    static func sibling(_ name: String) -> URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appending(path: name)
    }

    static func start(_ executable: URL, _ arguments: [String], environment: [String: String]) throws -> ChildProcess {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return ChildProcess(process: process, output: output)
    }

    /// Waits for the exit (killing the child after `timeout`) and returns its status and output.
    func wait(timeout: Duration) async throws -> (status: Int32, output: String) {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now > deadline {
                process.terminate()
                break
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        process.waitUntilExit()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
