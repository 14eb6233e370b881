public import AuthCore
import Fingerprint
import Foundation
import Synchronization
public import Vault

/// What putting a backup back would change, shown before anything is replaced.
public struct RestorePlan: Sendable {
    /// Which secret opens the vault once the backup is back.
    public enum Secret: Sendable, Equatable {
        /// The one that opens it now.
        case current
        /// The one valid when the backup was made, which is not the one valid now.
        case backups
        /// The one valid when the backup was made; whether it is today's could not be checked (the
        /// restore was authorised with the recovery key).
        case backupsUnchecked
    }

    public struct SettingChange: Sendable, Equatable {
        public var key: SecuritySettings.Key
        public var now: String
        public var after: String
    }

    public var backupPath: String
    /// Notes now (nil: there is no vault yet) and in the backup.
    public var notesNow: Int?
    public var notesAfter: Int
    /// The backup is of another vault (another store id), not an older copy of this one.
    public var otherVault: Bool
    public var passcodeAfter: Secret
    public var recoveryKeyAfter: Secret
    /// Fingers in the backup that are not enrolled now (forgotten since), and the reverse.
    public var fingersBack: [String]
    public var fingersGone: [String]
    public var settingChanges: [SettingChange]
    /// The vault's mode now (nil: there is no vault yet) and once the backup is back.
    public var modeNow: VaultMode?
    public var modeAfter: VaultMode
    /// For a backup in system mode: why its passcode would open nothing afterwards (fingerlockd has
    /// no secret for it, or could not be asked), with what still opens it; nil when all is well.
    public var serviceProblem: String?
    /// Which notes come back, go away or change (nil: there is no vault yet, every note is new).
    public var noteChanges: NoteSetChanges?
}
