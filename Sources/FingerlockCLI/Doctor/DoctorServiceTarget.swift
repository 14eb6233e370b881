public import Auth
public import Vault

/// What `doctor` needs to check fingerlockd: where the CLI looks for it, the vault's mode, and a way
/// to ask the service about this vault (no secret; nothing counted).
public struct DoctorServiceTarget: Sendable {
    public var socketPath: String
    public var vaultMode: @Sendable () -> VaultMode
    public var vaultStatus: @Sendable () throws -> SystemVaultStatus
    /// How long the service may take to answer one call.
    public var timeout: Duration
    /// Whether systemd runs this machine: how the fixes say to start or restart fingerlockd.
    public var systemd: Bool

    public init(
        socketPath: String, vaultMode: @escaping @Sendable () -> VaultMode,
        vaultStatus: @escaping @Sendable () throws -> SystemVaultStatus, timeout: Duration = .seconds(3), systemd: Bool = true
    ) {
        self.systemd = systemd
        self.socketPath = socketPath
        self.vaultMode = vaultMode
        self.vaultStatus = vaultStatus
        self.timeout = timeout
    }
}
