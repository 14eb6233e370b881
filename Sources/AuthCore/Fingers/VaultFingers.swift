public import Fingerprint

/// Which fingers a touch on a vault is checked against, chosen the same way in both modes: fprintd's
/// (with the set the vault accepted) once the vault took them, else the vault's own templates on
/// the reader in effect. Either way the reader must be of the vault's kind (``ReaderKind``), and it
/// is checked at every touch, not only when fprintd's fingers were taken: the passcode accepts
/// fprintd's set as it is, and its device may be another one by then.
public enum VaultFingers {
    /// A reader of another kind than the vault's: nothing is scanned.
    public struct WrongKind: Error, Equatable, Sendable {
        public var reader: ReaderIdentity
        public var kind: ReaderKind

        public init(reader: ReaderIdentity, kind: ReaderKind) {
            self.reader = reader
            self.kind = kind
        }
    }

    /// - Parameters:
    ///   - kind: the vault's reader kind (nil: not known to this host, which then accepts any).
    ///   - accepted: the fprintd set the vault took; nil for a vault of templates.
    ///   - fprintd: fprintd's fingers with that set.
    ///   - templates: the vault's templates on the reader in effect, looked up only when needed.
    public static func source(
        kind: ReaderKind?, accepted: AcceptedFingers?,
        fprintd: (AcceptedFingers) async throws -> FprintdFingerSource,
        templates: () async throws -> TemplateFingerSource
    ) async throws -> any FingerSource {
        let source: any FingerSource =
            if let accepted { try await fprintd(accepted) } else { try await templates() }
        if let kind, !kind.accepts(source.reader.identity) { throw WrongKind(reader: source.reader.identity, kind: kind) }
        return source
    }
}
