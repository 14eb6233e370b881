import Foundation

/// Reads procfs and sysfs files. They report a size of 0 (procfs) or 4096 (sysfs) whatever they
/// hold, so they are read to end of file rather than by their stated size.
enum PseudoFile {
    static func read(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.readToEnd() else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
