public import Foundation
import SafeFiles

/// Enrolled prints as files: `prints/<driver>/<device-id>/<finger>` under the data directory,
/// directories 0700 and files 0600, written atomically. Temporary: the vault will hold templates sealed.
public struct FilePrintStore: PrintStore {
    public let root: String

    /// `dataDirectory` is fingerlock's data directory; prints live in its `prints` subdirectory.
    public init(dataDirectory: String) {
        self.root = dataDirectory + "/prints"
    }

    public func allPrints() throws -> [EnrolledPrint] {
        var result: [EnrolledPrint] = []
        for driver in try entries(root) {
            for device in try entries(root + "/" + driver) {
                let identity = ReaderIdentity(driver: Self.decode(driver), deviceID: Self.decode(device))
                result += try prints(for: identity)
            }
        }
        return result.sorted { ($0.reader, $0.finger) < ($1.reader, $1.finger) }
    }

    public func prints(for reader: ReaderIdentity) throws -> [EnrolledPrint] {
        let directory = directoryPath(for: reader)
        var result: [EnrolledPrint] = []
        for name in try entries(directory) where Finger(rawValue: name) != nil {
            result.append(try load(directory + "/" + name))
        }
        return result.sorted { $0.finger < $1.finger }
    }

    public func save(_ print: EnrolledPrint) throws {
        let directory = try PrivateDirectory(creating: root)
            .subdirectory(Self.encode(print.reader.driver))
            .subdirectory(Self.encode(print.reader.deviceID))
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = .sortedKeys
        let bytes = try encoder.encode(print)
        try AtomicFile.write(Array(bytes), to: directory.appending(print.finger.rawValue))
    }

    @discardableResult
    public func delete(_ finger: Finger, on reader: ReaderIdentity) throws -> Bool {
        try AtomicFile.remove(directoryPath(for: reader) + "/" + finger.rawValue)
    }

    private func directoryPath(for reader: ReaderIdentity) -> String {
        "\(root)/\(Self.encode(reader.driver))/\(Self.encode(reader.deviceID))"
    }

    private func load(_ path: String) throws -> EnrolledPrint {
        try PrivateDirectory.checkFile(path)
        let bytes = try AtomicFile.read(path)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let print = try? decoder.decode(EnrolledPrint.self, from: Data(bytes)) else {
            throw FingerprintError(
                .invalidPrint, "The enrolled print \(path) is damaged; forget that finger and enroll it again.")
        }
        return print
    }

    private func entries(_ path: String) throws -> [String] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        try PrivateDirectory.check(path)
        return try FileManager.default.contentsOfDirectory(atPath: path)
            .filter { !$0.hasPrefix(".") && !$0.contains(".tmp-") }
            .sorted()
    }

    // Device ids are driver-defined strings; keep them to one safe path component.
    static func encode(_ component: String) -> String {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_"))
        return component.addingPercentEncoding(withAllowedCharacters: allowed) ?? component
    }

    static func decode(_ component: String) -> String {
        component.removingPercentEncoding ?? component
    }
}
