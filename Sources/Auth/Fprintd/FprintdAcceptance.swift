import AuthCore
import Foundation
import Vault

/// Where a vault keeps the set of fprintd's fingers it accepted: a setting sealed in the vault, so
/// only its key reads or changes it, and a vault's fingers never move to (or away from) fprintd
/// without the passcode.
enum FprintdAcceptance {
    static let settingKey = "fprintd-fingers"

    /// The accepted set; nil when the vault takes its fingers from its own templates.
    static func read(_ vault: Vault) throws -> AcceptedFingers? {
        guard let data = try AuthError.mapped({ try vault.setting(settingKey) }) else { return nil }
        guard let accepted = try? JSONDecoder().decode(AcceptedFingers.self, from: data) else {
            throw AuthError(
                .dataError, "The fprintd fingers this vault accepted are unreadable; `fingerlock forget --reader fprintd` stops using them.")
        }
        return accepted
    }

    static func write(_ accepted: AcceptedFingers, to vault: Vault) throws {
        let data = try JSONEncoder().encode(accepted)
        try AuthError.mapped { try vault.setSetting(data, for: settingKey) }
    }

    /// Stops taking fingers from fprintd; returns whether the vault did.
    @discardableResult
    static func remove(from vault: Vault) throws -> Bool {
        try AuthError.mapped { try vault.removeSetting(settingKey) }
    }
}
