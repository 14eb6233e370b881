public import Fingerprint

/// The fingers a vault accepted from a keeper it does not control (fprintd): the reader's name and
/// the finger names, sealed in the vault, as LocalAuthentication's `evaluatedPolicyDomainState`.
///
/// fprintd lets the user add a finger with only their login password, never fingerlock's passcode.
/// So a touch unlocks only while fprintd's set is the one the vault accepted; when it differs, the
/// passcode is asked, and proving it accepts the new set. What cannot be seen from outside fprintd:
/// a finger deleted and enrolled again under the same name (the README says so).
public struct AcceptedFingers: Codable, Sendable, Equatable {
    /// The reader's name as fprintd gives it (its `name` property).
    public var device: String
    /// Sorted, without repeats.
    public var fingers: [Finger]

    public init(device: String, fingers: [Finger]) {
        self.device = device
        self.fingers = Array(Set(fingers)).sorted()
    }

    /// What changed from this accepted set to `current`; nil when nothing did.
    public func change(to current: AcceptedFingers) -> Change? {
        let added = current.fingers.filter { !fingers.contains($0) }
        let removed = fingers.filter { !current.fingers.contains($0) }
        let otherReader = device != current.device ? (from: device, to: current.device) : nil
        guard !added.isEmpty || !removed.isEmpty || otherReader != nil else { return nil }
        return Change(added: added, removed: removed, readerFrom: otherReader?.from, readerTo: otherReader?.to)
    }

    /// A difference between the accepted set and fprintd's.
    public struct Change: Sendable, Equatable {
        public var added: [Finger]
        public var removed: [Finger]
        /// Set when the reader itself is another one.
        public var readerFrom: String?
        public var readerTo: String?

        /// "added left-thumb; removed right-index-finger; the reader is now X (was Y)".
        public var summary: String {
            var parts: [String] = []
            if !added.isEmpty { parts.append("added " + added.map(\.rawValue).joined(separator: ", ")) }
            if !removed.isEmpty { parts.append("removed " + removed.map(\.rawValue).joined(separator: ", ")) }
            if let readerFrom, let readerTo { parts.append("the reader is now \(readerTo) (was \(readerFrom))") }
            return parts.joined(separator: "; ")
        }
    }
}
