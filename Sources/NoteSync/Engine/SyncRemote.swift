public import Foundation

/// The transport: a place files are added to and read from, as one moving snapshot. git is one
/// (`GitRemote`); tests use an in-memory one. The engine never learns which.
public protocol SyncRemote: Sendable {
    /// Brings the remote's current state here and lists it.
    func fetch() throws(SyncError) -> RemoteListing
    /// The contents of `paths` in `listing`'s snapshot (a path it does not hold is left out).
    func read(_ paths: [String], from listing: RemoteListing) throws(SyncError) -> [String: Data]
    /// Adds (and removes) files on top of `listing`'s snapshot. false when the remote moved since
    /// that fetch (someone pushed first): nothing was changed there; fetch and try again.
    func publish(_ publication: RemotePublication, onto listing: RemoteListing) throws(SyncError) -> Bool
}

/// One snapshot of the remote: an opaque revision (nil for an empty remote) and every file's size.
public struct RemoteListing: Sendable, Equatable {
    public var revision: String?
    public var sizes: [String: Int]
    /// git's object id of each file, where the transport knows it: a file whose id is that of the
    /// content expected need not be read.
    public var objects: [String: String]

    public init(revision: String?, sizes: [String: Int], objects: [String: String] = [:]) {
        self.revision = revision
        self.sizes = sizes
        self.objects = objects
    }

    public var isEmpty: Bool { sizes.isEmpty }

    /// Per device, the sequences of its records present, in order.
    var recordSequences: [UUID: [UInt64]] {
        var sequences: [UUID: [UInt64]] = [:]
        for path in sizes.keys {
            guard let version = RemoteLayout.version(inPath: path) else { continue }
            sequences[version.device, default: []].append(version.sequence)
        }
        return sequences.mapValues { $0.sorted() }
    }
}

public struct RemotePublication: Sendable, Equatable {
    public var added: [String: Data]
    public var removed: [String]
    public var message: String
    /// A compaction: the remote's history is replaced by one state holding `added` alone, and
    /// only if the remote is still at the listing's revision (a forced push with a lease).
    public var replacingHistory: Bool

    public init(added: [String: Data], removed: [String] = [], message: String, replacingHistory: Bool = false) {
        self.added = added
        self.removed = removed
        self.message = message
        self.replacingHistory = replacingHistory
    }
}
