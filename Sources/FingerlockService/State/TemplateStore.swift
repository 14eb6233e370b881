public import AuthCore
public import Crypto
public import Fingerprint

/// The fingerprint templates enrolled for a vault through the service, one per finger, kept where
/// only the service can read them and sealed under a key derived from the vault's secret.
public protocol TemplateStore: Sendable {
    /// Every print enrolled for the vault; a damaged or foreign file is an error, never skipped.
    func prints(_ owner: VaultOwner, secret: SymmetricKey) throws -> [EnrolledPrint]
    /// Keeps `print`, replacing the vault's print of the same finger.
    func save(_ print: EnrolledPrint, _ owner: VaultOwner, secret: SymmetricKey) throws
    /// Deletes the vault's print of `finger`; returns whether there was one.
    func delete(_ finger: Finger, _ owner: VaultOwner) throws -> Bool
    /// The set of fprintd's fingers the vault accepted; nil when its own templates apply.
    func acceptedFprintdFingers(_ owner: VaultOwner, secret: SymmetricKey) throws -> AcceptedFingers?
    /// Keeps `accepted` as the vault's set of fprintd's fingers; nil removes it (the templates apply again).
    func setAcceptedFprintdFingers(_ accepted: AcceptedFingers?, _ owner: VaultOwner, secret: SymmetricKey) throws
}
