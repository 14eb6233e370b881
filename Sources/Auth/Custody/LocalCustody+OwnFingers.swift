import AuthCore
import Fingerprint
import Foundation
import Vault

/// User mode's own fingers: templates sealed in the vault, scanned on the reader in effect, with the
/// copies a reader with its own storage keeps.
extension LocalCustody: OwnFingers {
    var ownFingers: any OwnFingers { self }

    func enrollingReader() async throws -> ReaderIdentity? {
        try await environment.requireReader().identity
    }

    /// With a key cached, the fingers are known before the passcode.
    func enrolledBeforePasscode() async throws -> [Enrollment.ListedFinger]? {
        guard let cached = try? cachedVault().vault else { return nil }
        defer { cached.close() }
        return try Self.listed(in: cached)
    }

    /// A passcode given within the reuse window (right after `passcode set`, say) is not asked
    /// again when it may stand: its key is used, as the other commands skip the touch.
    func withPasscode<T: Sendable>(reason: String, recentOneStands: Bool, _ body: (any ProvenFingers) async throws -> T)
        async throws -> T
    {
        var proven: Vault?
        if recentOneStands, let cached = try? cachedVault().vault {
            if (try? environment.isWithinPasscodeWindow(cached)) == true { proven = cached } else { cached.close() }
        }
        let vault: Vault
        if let proven { vault = proven } else { vault = try await PasscodeUnlock(environment).unlockWithPasscode(reason: reason) }
        defer { vault.close() }
        return try await body(ProvenVaultFingers(environment: environment, vault: vault))
    }

    /// The fingers a vault lists: fprintd's accepted set when it takes those, else its templates.
    static func listed(in vault: Vault) throws -> [Enrollment.ListedFinger] {
        if let accepted = try FprintdAcceptance.read(vault) { return listed(accepted) }
        return try AuthError.mapped { try VaultPrintStore(vault: vault).allPrints().map(Enrollment.ListedFinger.init) }
    }
}

/// The templates of a vault the passcode opened.
struct ProvenVaultFingers: ProvenFingers {
    /// Unowned, as the custody's: the environment outlives the command's use of it.
    unowned let environment: AuthEnvironment
    let vault: Vault
    /// Every connected reader, enumerated once and only for a print on a real one.
    let connectedReaders: OnceTask<[any FingerprintReader]>

    init(environment: AuthEnvironment, vault: Vault) {
        self.environment = environment
        self.vault = vault
        connectedReaders = OnceTask { [dependencies = environment.dependencies] in await dependencies.connectedReaders() }
    }

    var store: VaultPrintStore { VaultPrintStore(vault: vault) }

    func enrolled() async throws -> [Enrollment.ListedFinger] {
        try LocalCustody.listed(in: vault)
    }

    func enroll(
        _ finger: Finger, replacing: Enrollment.ListedFinger?, username: String,
        updates: @escaping @Sendable (Enrollment.Update) -> Void
    ) async throws -> Enrollment.ListedFinger {
        let reader = try await environment.requireReader()
        try environment.checkReaderKind(reader, vault: vault)
        let settings = try AuthError.mapped { try SecuritySettings(vault: vault) }
        let info = reader.info
        // An on-chip reader refuses a second copy of a print: the old one goes first.
        if let replacing, info.hasStorage, let old = try print(of: replacing) { try? await reader.deleteStoredPrint(old) }
        updates(.starting(info))
        let print: EnrolledPrint
        do {
            let label = PrintLabel.username(user: username, storeID: try AuthError.mapped { try vault.storeID })
            print = try await reader.enroll(finger, username: label, timeout: settings.scanTimeout) { event in
                updates(.progress(event))
            }
        } catch is CancellationError {
            throw AuthError(.userCancel, "Enrollment cancelled; nothing was saved.")
        } catch let error as FingerprintError
            where error.code == .storageFull && info.features.isSuperset(of: [.storageList, .storageDelete])
        {
            throw FingerprintError(
                .storageFull,
                "The reader's own storage is full: `fingerlock storage list` shows whose prints fill it, and"
                    + " `fingerlock storage delete ID` (another program's) or `fingerlock forget FINGER` (yours) frees a"
                    + " place. Nothing was saved.")
        } catch let error as FingerprintError where error.code == .duplicate && info.hasStorage {
            let explanation = await ReaderStorageManagement.duplicateExplanation(finger, reader: reader, vault: vault)
            throw FingerprintError(.duplicate, explanation + " Nothing was saved.")
        } catch let error as FingerprintError {
            throw FingerprintError(error.code, error.message + " Nothing was saved.")
        }
        try AuthError.mapped { try store.save(print) }
        return Enrollment.ListedFinger(print)
    }

    /// The template goes from the vault; its copy on a connected reader with storage goes too, and
    /// one on a reader not connected now stays there, unlocking nothing any more.
    func forget(_ finger: Enrollment.ListedFinger) async throws -> Enrollment.ForgottenPrint {
        guard let print = try print(of: finger) else {
            throw AuthError(.notFound, "\(finger.finger) is not enrolled; `fingerlock fingers` lists the enrolled ones.")
        }
        var onReader = Enrollment.ForgottenPrint.OnReader.nothingLeft
        if !print.reader.isSimulated {
            let connected = await connectedReaders.value.first { $0.identity == print.reader }
            if let connected, connected.info.features.contains(.storageDelete) {
                do {
                    try await connected.deleteStoredPrint(print)
                } catch let error as FingerprintError where error.code == .printNotFound {
                    // Already gone from the device: nothing to do there.
                }
            } else if connected == nil {
                onReader = .leftOnDisconnectedReader
            }
        }
        try AuthError.mapped { _ = try store.delete(print.finger, on: print.reader) }
        return Enrollment.ForgottenPrint(finger: print.finger, reader: print.reader, onReader: onReader)
    }

    /// The sealed print behind a listed finger.
    private func print(of finger: Enrollment.ListedFinger) throws -> EnrolledPrint? {
        try AuthError.mapped { try store.prints(for: finger.reader) }.first { $0.finger == finger.finger }
    }
}
