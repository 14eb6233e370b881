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

/// A restore that is ready: its plan, then `commit()` or `cancel()`.
public final class PreparedRestore: Sendable {
    public let plan: RestorePlan
    private let staged: StagedRestore
    private let current: Vault?
    private let context: AuthContext

    init(plan: RestorePlan, staged: StagedRestore, current: Vault?, context: AuthContext) {
        self.plan = plan
        self.staged = staged
        self.current = current
        self.context = context
    }

    /// Replaces the vault with the backup, forgets every cached key (the old vault's included) and
    /// caches the restored one. Returns the number of notes restored.
    public func commit() throws -> Int {
        defer { cancel() }
        let restored = try AuthContext.vaultCall { try staged.commit() }
        defer { restored.close() }
        // The backup may bring the other mode back.
        context.recordedHeader.withLock { $0 = nil }
        _ = try? context.lock()
        try context.cacheKey(of: restored)
        return try AuthContext.vaultCall { try restored.noteCount() }
    }

    /// Leaves everything as it was and removes the staged copy.
    public func cancel() {
        staged.discard()
        current?.close()
    }
}

/// `restore`: replacing the security state (passcode, recovery key, fingers, settings) with a
/// backup's needs the current vault's passcode or recovery key — never a touch — and the user's
/// confirmation of what comes back.
extension AuthContext {
    public func prepareRestore(from backupPath: String) async throws -> PreparedRestore {
        guard FileManager.default.fileExists(atPath: backupPath) else {
            throw AuthError(.notFound, "No backup at \(backupPath).")
        }
        try requirePasscodeSource()
        var current: Vault?
        var currentSecret: VaultCredential?
        if passcodes.hasPasscode {
            let (vault, secret) = try await promptForPasscodeOrRecoveryKey(reason: "restore a backup over this vault")
            current = vault
            currentSecret = secret
        }
        do {
            let staged = try await stage(backupPath, current: current)
            do {
                let plan = try await plan(backupPath, staged: staged.backup, current: current, secret: currentSecret)
                return PreparedRestore(plan: plan, staged: staged, current: current, context: self)
            } catch {
                staged.discard()
                throw error
            }
        } catch {
            current?.close()
            throw error
        }
    }

    /// The current vault's passcode or recovery key (one prompt accepts either), counted and delayed
    /// like any passcode.
    private func promptForPasscodeOrRecoveryKey(reason: String) async throws -> (Vault, VaultCredential) {
        let prompts = interaction.passcodeFromScript ? 1 : Self.passcodePromptsPerEvaluation
        var refusal = CountedAttempt.Refusal(serviceSays: nil)
        for attempt in 1...prompts {
            try refuseDuringPasscodeDelay()
            let input = try await interaction.askSecret(prompt: "Passcode or recovery key (\(reason)): ", typedAhead: "")
            switch try countedAttempt(anyOf: Self.credentials(for: input)) {
            case .opened(let vault, let credential): return (vault, credential)
            case .refused(let why): refusal = why
            }
            if attempt < prompts {
                interaction.notify(refusal.retryNotice(default: "Wrong passcode or recovery key, try again."))
            }
        }
        throw AuthError(.authenticationFailed, refusal.finalMessage(default: "Wrong passcode or recovery key."))
    }

    /// Stages the backup: with the current key when it is an older copy of this vault, else with
    /// the passcode (or recovery key) it was made with.
    func stage(_ backupPath: String, current: Vault?) async throws -> StagedRestore {
        if let current {
            let key = try Self.vaultCall { try current.exportMasterKey() }
            do {
                return try passcodes.stageRestore(from: backupPath, using: .masterKey(key), sealers: .vaultOnly)
            } catch where error.code == .wrongKey {
                // Rekeyed since, or another vault: the backup's own secret opens it.
            } catch {
                throw Self.authError(error)
            }
        }
        let secret = try await interaction.askSecret(prompt: "Passcode the backup was made with (or its recovery key): ", typedAhead: "")
        for credential in Self.credentials(for: secret) {
            do {
                return try passcodes.stageRestore(from: backupPath, using: credential, sealers: passcodeSealers)
            } catch where [.wrongPasscode, .wrongRecoveryKey, .invalidInput].contains(error.code) {
                continue
            } catch {
                throw Self.authError(error)
            }
        }
        throw AuthError(.authenticationFailed, "That passcode does not open the backup; nothing was restored.")
    }

    private func plan(_ backupPath: String, staged backup: Vault, current: Vault?, secret: VaultCredential?) async throws -> RestorePlan {
        try Self.vaultCall {
            let backupKind = try backup.kind
            let kindHere = try current?.kind
            if let kindHere, kindHere != backupKind {
                throw AuthError(
                    .dataError,
                    "The backup is of a \(Self.describe(backupKind)) but this data directory holds a \(Self.describe(kindHere)); restore it into another --data-dir. Nothing was restored.")
            }
            if current == nil, let chosen = dependencies.testReaderChosen, (backupKind == .test) != chosen {
                throw AuthError(
                    .dataError,
                    "The backup is of a \(Self.describe(backupKind)), but the reader chosen (--reader) is \(chosen ? "a test reader" : "real hardware"); nothing was restored.")
            }
            if current == nil, dependencies.testReaderChosen == nil, backupKind == .test {
                throw AuthError(
                    .dataError,
                    "The backup is of a test vault; restore it with --reader simulated (or a virtual_* driver) so this data directory does not become a test vault by accident. Nothing was restored.")
            }
            let modeAfter = try backup.mode
            var passcodeAfter = RestorePlan.Secret.backups
            var recoveryAfter = RestorePlan.Secret.backups
            if let current {
                recoveryAfter = current.hasSameRecoveryKey(as: backup) ? .current : .backups
                switch secret {
                case .passcode? where modeAfter == .system:
                    // Trying the passcode on the backup's slot would be a counted attempt at the
                    // service (and a wrong one a failure): only an identical slot is known to match.
                    passcodeAfter = current.hasSamePasscodeSlot(.system, as: backup) ? .current : .backupsUnchecked
                case .passcode(let passcode)?:
                    passcodeAfter = backup.opens(with: .passcode(passcode)) ? .current : .backups
                default:
                    passcodeAfter = .backupsUnchecked
                }
            }
            let fingersNow = try current.map { try Set(VaultPrintStore(vault: $0).allPrints().map(Self.name)) } ?? []
            let fingersThen = Set(try VaultPrintStore(vault: backup).allPrints().map(Self.name))
            var changes: [RestorePlan.SettingChange] = []
            if let current {
                let now = try SecuritySettings(vault: current)
                let then = try SecuritySettings(vault: backup)
                for key in SecuritySettings.Key.allCases where now.value(key) != then.value(key) {
                    changes.append(.init(key: key, now: now.value(key), after: then.value(key)))
                }
            }
            var plan = RestorePlan(
                backupPath: backupPath, notesNow: try current?.noteCount(), notesAfter: try backup.noteCount(),
                otherVault: try current.map { try $0.storeID != backup.storeID } ?? false,
                passcodeAfter: passcodeAfter, recoveryKeyAfter: recoveryAfter,
                fingersBack: fingersThen.subtracting(fingersNow).sorted(),
                fingersGone: fingersNow.subtracting(fingersThen).sorted(), settingChanges: changes,
                modeNow: try current?.mode, modeAfter: modeAfter,
                serviceProblem: modeAfter == .system ? serviceProblem(restoring: backup) : nil)
            if let current { plan.noteChanges = NoteSetChanges(from: try current.list(), to: try backup.list()) }
            return plan
        }
    }

    /// What stands in the way of the passcode of a system-mode backup once it is back.
    private func serviceProblem(restoring backup: Vault) -> String? {
        do {
            let storeID = try backup.storeID
            if try systemCall({ try systemService.status(vault: storeID) }).registered { return nil }
            return "fingerlockd has no secret for the backup's vault, so afterwards its passcode opens nothing; "
                + "its recovery key does (`fingerlock passcode reset`)."
        } catch {
            return "\(Self.authError(error).message) Afterwards the passcode opens the vault only through fingerlockd; "
                + "the backup's recovery key opens it without."
        }
    }

    /// What one typed secret may be: a recovery key first when it reads as one, else a passcode.
    private static func credentials(for secret: String) -> [VaultCredential] {
        RecoveryKey(parsing: secret) != nil ? [.recoveryKey(secret), .passcode(secret)] : [.passcode(secret)]
    }

    private static func name(_ print: EnrolledPrint) -> String { "\(print.finger) on \(print.reader)" }

    private static func describe(_ kind: VaultKind) -> String {
        kind == .test ? "test vault (simulated and virtual readers)" : "hardware vault (real readers)"
    }
}
