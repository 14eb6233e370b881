public import AuthCore
import Vault

/// `config get|set`: the sealed security settings.
public struct SettingsEditor: Sendable {
    let environment: AuthEnvironment
    /// The vault's custody, held by the environment for the command.
    var custody: any KeyCustody { environment.custody }

    public init(_ environment: AuthEnvironment) { self.environment = environment }

    /// The settings, read with the cached key or else the passcode (they are no secret to the user).
    public func settings() async throws -> SecuritySettings {
        let vault = try await custody.openWithoutTouch(reason: "read the settings")
        defer { vault.close() }
        return try AuthError.mapped { try SecuritySettings(vault: vault) }
    }

    /// Changes one setting; always asks for the passcode, so nobody loosens a setting with a touch
    /// or a cached key.
    public func changeSetting(_ key: SecuritySettings.Key, to value: String) async throws -> SecuritySettings {
        var probe = SecuritySettings()
        try probe.set(key, to: value)
        let vault = try await PasscodeUnlock(environment).unlockWithPasscode(reason: "change a setting")
        defer { vault.close() }
        var settings = try AuthError.mapped { try SecuritySettings(vault: vault) }
        try settings.set(key, to: value)
        try AuthError.mapped { try settings.save(key, to: vault) }
        // The key was cached for the old expiry a moment ago; in system mode fingerlockd applies them.
        try custody.settingChanged(key, in: vault)
        return settings
    }
}
