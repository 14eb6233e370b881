public import AuthCore
public import Crypto
public import Fingerprint
import FoundationEssentials
import SafeFiles

/// Templates as 0600 files `print.FINGER` in the vault's directory (beside its secret), each an
/// AES-GCM box (nonce ‖ ciphertext ‖ tag) of the print's JSON under
///
///     HKDF-SHA256(ikm: secret, info: "fingerlock service templates v1")
///
/// authenticating the uid, the vault id and the finger: a file copied to another user's or
/// vault's directory, or renamed to another finger, does not open. The set of fprintd's fingers a
/// vault accepted is `fprintd-fingers` beside them, sealed the same way: fprintd's set changing
/// needs the passcode, so the accepted set is as much the vault's as its templates.
public struct FileTemplateStore: TemplateStore {
    let layout: StateLayout

    public init(layout: StateLayout) {
        self.layout = layout
    }

    static let prefix = "print."
    static let info = Data("fingerlock service templates v1".utf8)
    /// A libfprint template is a few KiB (an image-based one at most some tens); more is damage.
    static let maximumFileSize = 1 << 20

    func path(_ finger: Finger, _ owner: VaultOwner) -> String {
        layout.vaultDirectory(owner) + "/" + Self.prefix + finger.rawValue
    }

    static func key(secret: SymmetricKey) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: secret, info: info, outputByteCount: 32)
    }

    static func associatedData(_ owner: VaultOwner, _ finger: Finger) -> Data {
        Data("fingerlock service template v1\0\(owner.uid)\0\(owner.vault)\0\(finger.rawValue)".utf8)
    }

    public func prints(_ owner: VaultOwner, secret: SymmetricKey) throws -> [EnrolledPrint] {
        let key = Self.key(secret: secret)
        var prints: [EnrolledPrint] = []
        for finger in Finger.allCases {
            let path = path(finger, owner)
            guard FileManager.default.fileExists(atPath: path) else { continue }
            try PrivateDirectory.checkFile(path)
            var sealed = try AtomicFile.read(path)
            defer { Zeroing.zero(&sealed) }
            guard sealed.count <= Self.maximumFileSize, let box = try? AES.GCM.SealedBox(combined: sealed),
                var plain = try? AES.GCM.open(box, using: key, authenticating: Self.associatedData(owner, finger))
            else {
                throw ServiceStateError(.damaged, "\(path) does not open with this vault's key")
            }
            defer { Zeroing.zero(&plain) }
            guard let print = try? JSONDecoder().decode(EnrolledPrint.self, from: plain), print.finger == finger else {
                throw ServiceStateError(.damaged, "\(path) is not a print of \(finger)")
            }
            prints.append(print)
        }
        return prints
    }

    public func save(_ print: EnrolledPrint, _ owner: VaultOwner, secret: SymmetricKey) throws {
        var plain = try JSONEncoder().encode(print)
        defer { Zeroing.zero(&plain) }
        let box = try AES.GCM.seal(
            plain, using: Self.key(secret: secret), authenticating: Self.associatedData(owner, print.finger))
        guard let combined = box.combined else { throw CryptoKitError.incorrectParameterSize }
        try AtomicFile.write([UInt8](combined), to: path(print.finger, owner))
    }

    public func delete(_ finger: Finger, _ owner: VaultOwner) throws -> Bool {
        try AtomicFile.remove(path(finger, owner))
    }

    static let acceptedFile = "fprintd-fingers"

    static func acceptedAssociatedData(_ owner: VaultOwner) -> Data {
        Data("fingerlock service fprintd fingers v1\0\(owner.uid)\0\(owner.vault)".utf8)
    }

    public func acceptedFprintdFingers(_ owner: VaultOwner, secret: SymmetricKey) throws -> AcceptedFingers? {
        let path = layout.vaultDirectory(owner) + "/" + Self.acceptedFile
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        try PrivateDirectory.checkFile(path)
        let sealed = try AtomicFile.read(path)
        guard sealed.count <= Self.maximumFileSize, let box = try? AES.GCM.SealedBox(combined: sealed),
            let plain = try? AES.GCM.open(box, using: Self.key(secret: secret), authenticating: Self.acceptedAssociatedData(owner)),
            let accepted = try? JSONDecoder().decode(AcceptedFingers.self, from: plain)
        else {
            throw ServiceStateError(.damaged, "\(path) does not open with this vault's key")
        }
        return accepted
    }

    public func setAcceptedFprintdFingers(_ accepted: AcceptedFingers?, _ owner: VaultOwner, secret: SymmetricKey) throws {
        let path = layout.vaultDirectory(owner) + "/" + Self.acceptedFile
        guard let accepted else {
            _ = try AtomicFile.remove(path)
            return
        }
        let box = try AES.GCM.seal(
            try JSONEncoder().encode(accepted), using: Self.key(secret: secret), authenticating: Self.acceptedAssociatedData(owner))
        guard let combined = box.combined else { throw CryptoKitError.incorrectParameterSize }
        try AtomicFile.write([UInt8](combined), to: path)
    }
}
