public import Fingerprint
import Foundation
public import Vault

/// Enrolled prints sealed inside the vault: biometric data never rests in plaintext, and a template
/// planted by anything but fingerlock cannot be opened, so it cannot authenticate.
public struct VaultPrintStore: PrintStore {
    let vault: Vault

    public init(vault: Vault) { self.vault = vault }

    public func allPrints() throws -> [EnrolledPrint] {
        try vault.templates().map(decode).sorted { ($0.reader, $0.finger) < ($1.reader, $1.finger) }
    }

    public func prints(for reader: ReaderIdentity) throws -> [EnrolledPrint] {
        try vault.templates(reader: reader.description).map(decode).sorted { $0.finger < $1.finger }
    }

    public func save(_ print: EnrolledPrint) throws {
        try vault.putTemplate(try TemplateRecord.encode(print), reader: print.reader.description, finger: print.finger.rawValue)
    }

    @discardableResult
    public func delete(_ finger: Finger, on reader: ReaderIdentity) throws -> Bool {
        try vault.deleteTemplate(reader: reader.description, finger: finger.rawValue)
    }

    private func decode(_ sealed: SealedTemplate) throws -> EnrolledPrint {
        // Authenticated by the vault, so a mismatch here is a fingerlock bug or a format change.
        guard let print = TemplateRecord.decode(sealed.data),
            print.reader.description == sealed.reader, print.finger.rawValue == sealed.finger
        else {
            throw AuthError(.dataError, "The enrolled \(sealed.finger) on \(sealed.reader) is unreadable; forget it and enroll it again.")
        }
        return print
    }
}
