import Foundation

/// `notes import` without `--format`: the format read off the input, when only one fits. A
/// directory with `.gpg-id` is a password store, one with note files a Markdown directory; JSON is
/// fingerlock's export when it is an array, jrnl's when an object with `entries`.
enum ImportFormatDetection {
    /// The format of the directory at `path`, or nil when `path` is not a directory.
    static func directoryFormat(_ path: String) throws -> ImportFormat? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else { return nil }
        if FileManager.default.fileExists(atPath: path + "/.gpg-id") { return .pass }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        if names.contains(where: { !$0.hasPrefix(".") && MarkdownDirectoryImport.extensions.contains(($0 as NSString).pathExtension.lowercased()) }) {
            return .markdownDirectory
        }
        throw CLIError(
            .usage,
            "\(path) is neither a password store (no .gpg-id) nor a directory of .md, .markdown or .txt files; give --format.")
    }

    /// The format of JSON text, from its first significant character and, for an object, its keys.
    static func jsonFormat(_ data: Data, source: String) throws -> ImportFormat {
        let first = data.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
        if first == UInt8(ascii: "[") { return .fingerlockJSON }
        if first == UInt8(ascii: "{"),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], object["entries"] is [Any]
        {
            return .jrnlJSON
        }
        throw CLIError(
            .usage,
            "\(source) is not a fingerlock export (a JSON array) nor a jrnl export (an object with entries); give --format.")
    }
}
