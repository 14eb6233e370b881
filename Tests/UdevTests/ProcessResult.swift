import Foundation
import Synchronization

/// The outcome of running a program to completion.
struct ProcessResult: Sendable {
    var status: Int32
    var stdout: String
    var stderr: String

    /// Runs `executable` (looked up on PATH through /usr/bin/env) with `arguments`, waiting for it.
    static func run(
        _ executable: String, _ arguments: [String], in directory: URL? = nil,
        environment: [String: String]? = nil
    ) throws -> ProcessResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [executable] + arguments
        if let directory { process.currentDirectoryURL = directory }
        if let environment { process.environment = environment }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Drain both pipes before waiting so a chatty child cannot block on a full pipe.
        let errorReader = Thread.detachedReader(err.fileHandleForReading)
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = errorReader.wait()
        process.waitUntilExit()
        return ProcessResult(
            status: process.terminationStatus,
            stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }
}

/// Reads a pipe to its end on its own thread.
final class DetachedPipeReader: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let box: DataBox

    init(_ handle: FileHandle) {
        let box = DataBox()
        self.box = box
        let done = self.done
        Thread.detachNewThread {
            box.set(handle.readDataToEndOfFile())
            done.signal()
        }
    }

    func wait() -> Data {
        done.wait()
        return box.get()
    }
}

/// The bytes a reader thread hands back, guarded by a mutex.
final class DataBox: Sendable {
    private let data = Mutex(Data())
    func set(_ value: Data) { data.withLock { $0 = value } }
    func get() -> Data { data.withLock { $0 } }
}

extension Thread {
    static func detachedReader(_ handle: FileHandle) -> DetachedPipeReader { DetachedPipeReader(handle) }
}
