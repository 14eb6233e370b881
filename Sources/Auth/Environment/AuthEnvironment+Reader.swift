import AuthCore
import Fingerprint
import Foundation
import Vault

/// The reader and the session, as every use case that touches a finger needs them.
extension AuthEnvironment {
    func refuseRemoteSession() async throws {
        if let remote = await remoteSessionCheck.reason() {
            throw AuthError(.biometryNotAvailable, remote, unavailability: .remoteSession)
        }
    }

    /// The reader in effect, waiting for libfprint's enumeration if it is still running.
    func requireReader() async throws -> any FingerprintReader {
        let (reader, problem) = await dependencies.readerLookup.outcome()
        // libfprint's enumeration cannot be interrupted; a Ctrl-C during it takes effect here.
        try Task.checkCancellation()
        if let reader { return reader }
        if let problem { throw AuthError.from(problem) }
        throw AuthError(.biometryNotAvailable, "No fingerprint reader is connected.", unavailability: .noReader)
    }

    /// Refuses a test reader on a hardware vault and a hardware reader on a test vault.
    func checkReaderKind(_ reader: any FingerprintReader, vault: Vault) throws {
        let kind = try AuthError.mapped { try vault.kind }
        if !ReaderKind(kind).accepts(reader.identity) {
            throw AuthError.wrongReaderKind(reader.identity.description, vaultKind: kind)
        }
    }
}
