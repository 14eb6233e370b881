public import Crypto

/// Where the per-vault secrets live: files under the service's state directory today; a TPM-sealed
/// store may take its place later without the policy noticing.
public protocol VaultSecretStore: Sendable {
    /// Creates a random secret for the vault if it has none; returns whether it created one.
    func register(_ owner: VaultOwner) throws -> Bool
    /// Whether the vault has a secret, without reading it.
    func contains(_ owner: VaultOwner) throws -> Bool
    /// The vault's secret, or nil when it has none.
    func secret(_ owner: VaultOwner) throws -> SymmetricKey?
    /// The binding of the slot last sealed for the vault (nil before the first seal).
    func binding(_ owner: VaultOwner) throws -> SlotBinding?
    /// Records the binding of a newly sealed slot, durably.
    func setBinding(_ binding: SlotBinding, for owner: VaultOwner) throws
    /// The policy the vault's owner set last (nil before the first SetVaultPolicy).
    func policy(_ owner: VaultOwner) throws -> ServiceVaultPolicy?
    /// Records the vault's policy, durably.
    func setPolicy(_ policy: ServiceVaultPolicy, for owner: VaultOwner) throws
    /// Deletes the vault's secret and everything kept beside it (its attempt counters, its policy, its templates).
    func forget(_ owner: VaultOwner) throws
}
