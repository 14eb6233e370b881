public import AuthCore
public import Fingerprint
import Foundation
import Vault

/// `storage list|delete|clear`: the prints a match-on-chip reader keeps in its own storage: listing them, deleting one, clearing
/// it. All behind the passcode (as enrolling and forgetting are), and nothing fingerlock did not
/// enroll is deleted without a confirmation that says what else stops working.
public struct ReaderStorageManagement: Sendable {
    let environment: AuthEnvironment

    public init(_ environment: AuthEnvironment) { self.environment = environment }

    /// One stored print and whose it is.
    public struct StoredPrintEntry: Sendable, Equatable {
        public var print: StoredPrint
        public var owner: StoredPrintOwner

        /// The user named on the print (a foreign print's username, the user behind a fingerlock label).
        public var user: String? { PrintLabel.user(of: print) }

        /// Who it is, in words: "your right-index-finger in this vault", "fprintd's print? …".
        public var summary: String {
            let finger = print.finger.map { " \($0)" } ?? ""
            switch owner {
            case .thisVault(let finger):
                return "your \(finger) in this vault"
            case .leftOver:
                return "a fingerlock print\(finger) of this vault that it no longer uses (left over)"
            case .otherVault(let tag):
                let vault = tag.map { "vault \($0)" } ?? "a vault the reader does not name"
                return "a fingerlock print\(finger) of another vault (\(vault)\(user.map { ", user \($0)" } ?? ""))"
            case .foreign(let username):
                let who = username.map { "user \($0)" } ?? "no user recorded"
                return "a print\(finger) fingerlock did not enroll (\(who); fprintd's, for instance)"
            }
        }

        /// What stops working when it is deleted.
        public var consequence: String {
            switch owner {
            case .thisVault(let finger):
                return "\(finger) will no longer unlock this vault until it is enrolled again."
            case .leftOver:
                return "Nothing stops working: this vault does not use it."
            case .otherVault(let tag):
                return "The fingerlock vault \(tag ?? "that enrolled it") will no longer unlock with that finger"
                    + " until it is enrolled there again."
            case .foreign(let username):
                let whose = username.map { "user \($0)'s" } ?? "the"
                return "Whatever enrolled it (fprintd, for \(whose) desktop login, lock screen or sudo) will no"
                    + " longer accept that finger until it is enrolled there again."
            }
        }
    }

    /// What a reader keeps, for `storage list`.
    public struct ReaderStorage: Sendable, Equatable {
        public var reader: ReaderInfo
        public var entries: [StoredPrintEntry]
    }

    /// What `storage clear` did.
    public struct ClearedStorage: Sendable, Equatable {
        public var reader: ReaderInfo
        public var deleted: [StoredPrintEntry]
        /// This vault's fingers on that reader, forgotten here too: the reader can no longer match them.
        public var forgotten: [Finger]
    }

    /// Every print on the reader in effect, each with its owner.
    public func readerStorage() async throws -> ReaderStorage {
        let (reader, vault) = try await storageSession(.storageList, reason: "list the prints stored on the reader")
        defer { vault.close() }
        return try await Self.listing(reader, vault: vault)
    }

    /// Deletes the stored print whose id starts with `id`, once `confirm` agreed; returns nil when it
    /// did not. A print of this vault is refused: `forget` removes it from both places.
    public func deleteStoredPrint(
        id: String, confirm: @Sendable (StoredPrintEntry) async throws -> Bool
    ) async throws -> StoredPrintEntry? {
        let wanted = id.lowercased()
        guard (4...8).contains(wanted.count), wanted.allSatisfy({ $0.isASCII && $0.isHexDigit }) else {
            throw AuthError(
                .invalidInput, "That is not a stored print's id (4 to 8 hex digits); `fingerlock storage list` shows them.")
        }
        let (reader, vault) = try await storageSession(.storageDelete, reason: "delete a print stored on the reader")
        defer { vault.close() }
        let storage = try await Self.listing(reader, vault: vault)
        let matches = storage.entries.filter { $0.print.id.hasPrefix(wanted) }
        guard let entry = matches.first else {
            throw AuthError(
                .notFound, "No print with id \(wanted) is stored on \(reader.identity); `fingerlock storage list` shows them.")
        }
        guard matches.count == 1 else {
            throw AuthError(
                .invalidInput,
                "The id \(wanted) fits \(matches.count) stored prints: give more of it (\(matches.map(\.print.id).joined(separator: ", "))).")
        }
        if case .thisVault(let finger) = entry.owner {
            throw AuthError(
                .invalidInput,
                "That is your \(finger) in this vault: `fingerlock forget \(finger)` removes it from the reader and the vault.")
        }
        guard try await confirm(entry) else { return nil }
        do {
            try await reader.deleteStoredPrint(entry.print)
        } catch {
            throw AuthError.from(error)
        }
        return entry
    }

    /// Empties the reader's storage once `confirm` agreed (nil when it did not), and forgets this
    /// vault's fingers on that reader, which nothing can match any more.
    public func clearReaderStorage(
        confirm: @Sendable (ReaderStorage) async throws -> Bool
    ) async throws -> ClearedStorage? {
        let (reader, vault) = try await storageSession(.storageClear, reason: "clear the reader's storage")
        defer { vault.close() }
        let storage = try await Self.listing(reader, vault: vault)
        guard try await confirm(storage) else { return nil }
        do {
            try await reader.clearStorage()
        } catch {
            throw AuthError.from(error)
        }
        let store = VaultPrintStore(vault: vault)
        let ours = try AuthError.mapped { try store.prints(for: reader.identity) }
        for print in ours {
            try AuthError.mapped { _ = try store.delete(print.finger, on: reader.identity) }
        }
        return ClearedStorage(reader: reader.info, deleted: storage.entries, forgotten: ours.map(\.finger))
    }

    /// The reader (which must keep prints, list them and do `feature`) and the vault, opened with the
    /// passcode — in that order, so nobody types a passcode for what the reader cannot do.
    private func storageSession(_ feature: ReaderFeatures, reason: String) async throws -> (any FingerprintReader, Vault) {
        let reader = try await environment.requireReader()
        guard reader.info.hasStorage else {
            throw AuthError(
                .biometryNotAvailable,
                "\(reader.info.name) (\(reader.identity)) keeps no prints of its own: its prints live only in the vault"
                    + " (`fingerlock fingers`).",
                unavailability: .deviceError)
        }
        let missing = ReaderFeatures([.storageList, feature]).subtracting(reader.info.features)
        guard missing.isEmpty else {
            throw AuthError(
                .biometryNotAvailable,
                "\(reader.info.name) (\(reader.identity)) cannot do this: it lacks \(missing) (it has \(reader.info.features)).",
                unavailability: .deviceError)
        }
        let vault = try await PasscodeUnlock(environment).unlockWithPasscode(reason: reason)
        do {
            try environment.checkReaderKind(reader, vault: vault)
        } catch {
            vault.close()
            throw error
        }
        return (reader, vault)
    }

    static func listing(_ reader: any FingerprintReader, vault: Vault) async throws -> ReaderStorage {
        let ours = try AuthError.mapped { try VaultPrintStore(vault: vault).prints(for: reader.identity) }
        let stored: [StoredPrint]
        do {
            stored = try await reader.storedPrints(known: ours)
        } catch {
            throw AuthError.from(error)
        }
        let tag = PrintLabel.tag(storeID: try AuthError.mapped { try vault.storeID })
        let entries = stored.map { StoredPrintEntry(print: $0, owner: PrintLabel.owner(of: $0, ourTag: tag)) }
        return ReaderStorage(reader: reader.info, entries: entries)
    }

    /// The sentence for a finger the reader refused as a duplicate: whose print it already holds (as
    /// far as its list tells) and the command that frees it.
    static func duplicateExplanation(_ finger: Finger, reader: any FingerprintReader, vault: Vault) async -> String {
        let head = "This finger is already stored on \(reader.identity)"
        guard reader.info.features.contains(.storageList),
            let storage = try? await Self.listing(reader, vault: vault)
        else {
            return "\(head); `fingerlock storage list` shows the prints it holds."
        }
        // libfprint does not say which print it duplicates. With one print on the chip, that is the
        // one; otherwise the likeliest is one recorded as the same finger, and the message says so.
        let sameFinger = storage.entries.filter { $0.print.finger == finger }
        let candidates = storage.entries.count == 1 || sameFinger.isEmpty ? storage.entries : sameFinger
        guard candidates.count == 1, let entry = candidates.first else {
            let list = candidates.prefix(5).map { "\($0.print.id): \($0.summary)" }.joined(separator: "; ")
            return "\(head), as one of \(candidates.count) stored prints (\(list)); `fingerlock storage delete ID`"
                + " removes one, after saying what else stops working."
        }
        let certain = storage.entries.count == 1
        let stored = certain ? "as" : "probably as"
        let others = certain ? "" : " (`fingerlock storage list` shows the others)"
        if case .thisVault(let other) = entry.owner {
            return "\(head) \(stored) your \(other) in this vault\(others); `fingerlock forget \(other)` first, to enroll it as \(finger)."
        }
        return "\(head) \(stored) \(entry.summary)\(others). To enroll it here, delete that print with"
            + " `fingerlock storage delete \(entry.print.id)`: \(entry.consequence)"
    }
}
