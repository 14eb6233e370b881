import Foundation

/// Running processes as `/proc` shows them, for finding fprintd and what it holds open.
struct ProcessTable: Sendable {
    let procRoot: String

    /// Process ids whose `comm` is exactly `name`.
    func processIDs(named name: String) -> [Int] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: procRoot) else { return [] }
        return entries.compactMap { entry -> Int? in
            guard let pid = Int(entry),
                let comm = PseudoFile.read("\(procRoot)/\(entry)/comm"),
                comm.trimmingCharacters(in: .whitespacesAndNewlines) == name
            else { return nil }
            return pid
        }
        .sorted()
    }

    /// The targets of a process's open file descriptors, or nil when they cannot be read (another
    /// user's process, without root).
    func openFiles(of pid: Int) -> Set<String>? {
        let directory = "\(procRoot)/\(pid)/fd"
        guard let fds = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return nil }
        return Set(fds.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + $0) })
    }
}
