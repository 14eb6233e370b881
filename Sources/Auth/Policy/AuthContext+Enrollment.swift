import AuthCore
public import Fingerprint
import Foundation
import Vault

/// Enrolling and forgetting fingers: both need the passcode (as on iOS and with fprintd), never a
/// touch or a cached key, so nobody changes the enrolled set behind the user's back.
extension AuthContext {
    /// What enrollment reports as it goes.
    public enum EnrollmentUpdate: Sendable {
        /// The passcode was right and the reader is ready: scanning starts.
        case starting(ReaderInfo)
        case progress(EnrollEvent)
    }

    /// Enrolls `finger` on the reader in effect and seals its template in the vault. A Ctrl-C
    /// (task cancellation) or a reader error saves nothing. `username` is the user's login name; the
    /// print carries it with this vault's tag (``PrintLabel``), so a shared chip can tell whose it is.
    /// A finger already enrolled on this reader is replaced only when `confirmReplacing` agrees (asked
    /// after the passcode, before any touch); otherwise nothing changes.
    public func enroll(
        _ finger: Finger, username: String, confirmReplacing: @Sendable (EnrolledPrint) async throws -> Bool,
        updates: @escaping @Sendable (EnrollmentUpdate) -> Void
    ) async throws -> EnrolledPrint {
        if isSystemMode { return try await systemEnroll(finger, confirmReplacing: confirmReplacing, updates: updates) }
        // The reader first: nobody types a passcode for a reader that is not there.
        let reader = try await requireReader()
        let vault = try await unlockWithPasscode(reason: "enroll a finger")
        defer { vault.close() }
        try checkReaderKind(reader, vault: vault)
        let store = VaultPrintStore(vault: vault)
        let settings = try Self.vaultCall { try SecuritySettings(vault: vault) }
        let info = reader.info
        let old = try Self.vaultCall { try store.prints(for: info.identity) }.first { $0.finger == finger }
        if let old {
            guard try await confirmReplacing(old) else {
                throw AuthError(.userCancel, "\(finger) stays enrolled as it was; nothing was changed.")
            }
            // An on-chip reader refuses a second copy of a print: drop the old one first.
            if info.hasStorage { try? await reader.deleteStoredPrint(old) }
        }
        updates(.starting(info))
        let print: EnrolledPrint
        do {
            let label = PrintLabel.username(user: username, storeID: try Self.vaultCall { try vault.storeID })
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
            let explanation = await duplicateExplanation(finger, reader: reader, vault: vault)
            throw FingerprintError(.duplicate, explanation + " Nothing was saved.")
        } catch let error as FingerprintError {
            throw FingerprintError(error.code, error.message + " Nothing was saved.")
        }
        try Self.vaultCall { try store.save(print) }
        return print
    }

    /// One forgotten print, and what became of a copy on the reader's own storage.
    public struct ForgottenPrint: Equatable, Sendable {
        public enum OnReader: Equatable, Sendable {
            /// The reader keeps no prints, or the copy was deleted from it.
            case nothingLeft
            /// The reader is not connected: its copy stays there, but unlocks nothing any more.
            case leftOnDisconnectedReader
        }
        public var finger: Finger
        public var reader: ReaderIdentity
        public var onReader: OnReader
    }

    /// Forgets `finger` (nil: every finger) on the readers `covers` accepts, deleting on-chip copies
    /// from connected readers. Throws `.notFound` when a named finger is not enrolled there.
    public func forget(_ finger: Finger?, covers: @Sendable (ReaderIdentity) -> Bool) async throws -> [ForgottenPrint] {
        if isSystemMode { return try await systemForget(finger, covers: covers) }
        let vault = try await unlockWithPasscode(reason: "forget a finger")
        defer { vault.close() }
        let store = VaultPrintStore(vault: vault)
        let targets = try store.allPrints().filter { ($0.finger == finger || finger == nil) && covers($0.reader) }
        if targets.isEmpty, let finger {
            throw AuthError(.notFound, "\(finger) is not enrolled; `fingerlock fingers` lists the enrolled ones.")
        }
        var connected: [ReaderIdentity: any FingerprintReader] = [:]
        if targets.contains(where: { !$0.reader.isSimulated }) {
            for reader in await dependencies.connectedReaders() { connected[reader.identity] = reader }
        }
        var forgotten: [ForgottenPrint] = []
        for print in targets {
            var onReader = ForgottenPrint.OnReader.nothingLeft
            if let reader = connected[print.reader], reader.info.features.contains(.storageDelete) {
                do {
                    try await reader.deleteStoredPrint(print)
                } catch let error as FingerprintError where error.code == .printNotFound {
                    // Already gone from the device: nothing to do there.
                }
            } else if !print.reader.isSimulated, connected[print.reader] == nil {
                onReader = .leftOnDisconnectedReader
            }
            try Self.vaultCall { _ = try store.delete(print.finger, on: print.reader) }
            forgotten.append(ForgottenPrint(finger: print.finger, reader: print.reader, onReader: onReader))
        }
        return forgotten
    }

    /// The enrolled fingers, read with the cached key or else the passcode (`fingers`).
    public func enrolledPrints() async throws -> [EnrolledPrint] {
        if isSystemMode { return try systemEnrolledPrints() }
        let vault = try await openWithCachedKeyOrPasscode(reason: "read the enrolled fingers")
        defer { vault.close() }
        return try VaultPrintStore(vault: vault).allPrints()
    }
}
