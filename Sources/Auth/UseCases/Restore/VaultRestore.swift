import AuthCore
import Fingerprint
import Foundation
public import Vault

/// `restore`: replacing the security state (passcode, recovery key, fingers, settings) with a
/// backup's needs the current vault's passcode or recovery key — never a touch — and the user's
/// confirmation of what comes back.
public struct VaultRestore: Sendable {
    let environment: AuthEnvironment

    public init(_ environment: AuthEnvironment) { self.environment = environment }

    private var passcodes: any PasscodeRepository { environment.passcodes }
    private var interaction: any AuthInteraction { environment.interaction }
    private var dependencies: AuthEnvironment.Dependencies { environment.dependencies }

    /// Asks for the current vault's passcode or recovery key (when there is a vault), stages the
    /// backup and says what putting it back would change; nothing is replaced until `commit()`.
    /// `progress` hears (notes checked, notes in all) while the backup is checked whole.
    public func prepareRestore(from backupPath: String, progress: ((_ done: Int, _ total: Int) -> Void)? = nil) async throws -> PreparedRestore {
        guard FileManager.default.fileExists(atPath: backupPath) else {
            throw AuthError(.notFound, "No backup at \(backupPath).")
        }
        try PasscodeUnlock(environment).requirePasscodeSource()
        var current: Vault?
        var currentSecret: VaultCredential?
        if passcodes.hasPasscode {
            let (vault, secret) = try await promptForPasscodeOrRecoveryKey(reason: "restore a backup over this vault")
            current = vault
            currentSecret = secret
        }
        do {
            let staged = try await stage(backupPath, current: current, progress: progress)
            do {
                let plan = try await plan(backupPath, staged: staged.backup, current: current, secret: currentSecret)
                return PreparedRestore(plan: plan, staged: staged, current: current, environment: environment)
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
        let unlock = PasscodeUnlock(environment)
        return try await PasscodePrompts(interaction: interaction).ask(
            prompt: "Passcode or recovery key (\(reason)): ", beforeEach: unlock.refuseDuringPasscodeDelay
        ) { input in
            switch try unlock.countedAttempt(anyOf: Self.credentials(for: input)) {
            case .opened(let vault, let credential): .accepted((vault, credential))
            case .refused(let why):
                .refused(
                    notice: why.retryNotice(default: "Wrong passcode or recovery key, try again."),
                    final: why.finalMessage(default: "Wrong passcode or recovery key."))
            }
        }
    }

    /// Stages the backup: with the current key when it is an older copy of this vault, else with
    /// the passcode (or recovery key) it was made with.
    /// `restore --note`: opens `backupPath` for reading, checked whole, with `vault`'s key when it is
    /// an older copy of it, else with the passcode (or recovery key) the backup was made with; the open
    /// vault is otherwise left as it is (no security state comes back, so its own unlock is enough).
    /// `discard()` it after.
    public func openBackup(_ backupPath: String, besides vault: Vault) async throws -> StagedRestore {
        guard FileManager.default.fileExists(atPath: backupPath) else {
            throw AuthError(.notFound, "No backup at \(backupPath).")
        }
        return try await stage(backupPath, current: vault)
    }

    func stage(_ backupPath: String, current: Vault?, progress: ((_ done: Int, _ total: Int) -> Void)? = nil) async throws -> StagedRestore {
        if let current {
            let key = try AuthError.mapped { try current.exportMasterKey() }
            do {
                return try passcodes.stageRestore(from: backupPath, using: .masterKey(key), sealers: .vaultOnly, progress: progress)
            } catch  where error.code == .wrongKey {
                // Rekeyed since, or another vault: the backup's own secret opens it.
            } catch {
                throw AuthError.from(error)
            }
        }
        let secret = try await interaction.askSecret(prompt: "Passcode the backup was made with (or its recovery key): ", typedAhead: "")
        for credential in Self.credentials(for: secret) {
            do {
                return try passcodes.stageRestore(
                    from: backupPath, using: credential, sealers: environment.passcodeSealers, progress: progress)
            } catch  where [.wrongPasscode, .wrongRecoveryKey, .invalidInput].contains(error.code) {
                continue
            } catch {
                throw AuthError.from(error)
            }
        }
        throw AuthError(.authenticationFailed, "That passcode does not open the backup; nothing was restored.")
    }

    private func plan(_ backupPath: String, staged backup: Vault, current: Vault?, secret: VaultCredential?) async throws -> RestorePlan {
        try AuthError.mapped {
            let backupKind = try backup.kind
            let kindHere = try current?.kind
            if let kindHere, kindHere != backupKind {
                throw AuthError(
                    .dataError,
                    "The backup is of a \(Self.describe(backupKind)) but this data directory holds a \(Self.describe(kindHere)); restore it into another --data-dir. Nothing was restored."
                )
            }
            if current == nil, let chosen = dependencies.testReaderChosen, (backupKind == .test) != chosen {
                throw AuthError(
                    .dataError,
                    "The backup is of a \(Self.describe(backupKind)), but the reader chosen (--reader) is \(chosen ? "a test reader" : "real hardware"); nothing was restored."
                )
            }
            if current == nil, dependencies.testReaderChosen == nil, backupKind == .test {
                throw AuthError(
                    .dataError,
                    "The backup is of a test vault; restore it with --reader simulated (or a virtual_* driver) so this data directory does not become a test vault by accident. Nothing was restored."
                )
            }
            let modeAfter = try backup.mode
            let custodyAfter = environment.custody(for: modeAfter)
            var passcodeAfter = RestorePlan.Secret.backups
            var recoveryAfter = RestorePlan.Secret.backups
            if let current {
                recoveryAfter = current.hasSameRecoveryKey(as: backup) ? .current : .backups
                if case .passcode(let passcode)? = secret {
                    // How the passcode may be tried on the backup's slot is its custody's to say.
                    passcodeAfter = custodyAfter.passcodeAfterRestore(passcode, current: current, backup: backup)
                } else {
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
                serviceProblem: custodyAfter.problemAfterRestore(of: backup))
            if let current {
                let (notesNow, notesThen) = (try current.list(), try backup.list())
                let (trashNow, trashThen) = (try current.trash().map(\.summary), try backup.trash().map(\.summary))
                var changes = NoteSetChanges(from: notesNow, to: notesThen)
                changes.compareTrash(from: trashNow, to: trashThen)
                changes.compareRevisions(
                    from: try current.keptRevisionNumbers(), to: try backup.keptRevisionNumbers(),
                    headers: notesThen + trashThen + notesNow + trashNow)
                plan.noteChanges = changes
            }
            return plan
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
