/// Everything the vault can refuse, with the sentence a user needs. `part` names what was found
/// damaged or tampered with (a note id, "manifest", "slot table", ...), when that is known.
public struct VaultError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable, Equatable, CaseIterable {
        case wrongPasscode
        case wrongRecoveryKey
        /// A master key handed in (e.g. from the key cache) does not belong to this vault.
        case wrongKey
        /// Authenticated data failed to verify: something changed the vault behind our back.
        case tampered
        /// The database itself is unreadable (not an authentication failure).
        case corrupt
        /// The data directory or a vault file is accessible to others or owned by someone else.
        case permissions
        case notFound
        /// An abbreviated note id matches more than one note.
        case ambiguous
        /// Another process holds the vault for longer than we wait.
        case busy
        case diskFull
        /// Made by a newer (or unknown) version of fingerlock.
        case unsupportedFormat
        case notAVault
        case alreadyExists
        case invalidInput
        /// The vault was closed; open it again.
        case closed
        case io
        /// The passcode slot's sealer (system mode's service) cannot be asked, or no longer
        /// holds what the slot needs.
        case sealerUnavailable
        /// The passcode slot's sealer refuses passcode attempts until a delay ends.
        case passcodeDelayed
    }

    /// What gets the user past the error, where the vault knows one; the program that shows the
    /// error words it (as the command to run), the vault names no commands.
    public enum Remedy: Sendable, Equatable {
        /// The recovery key still opens the vault and replaces its passcode slot.
        case resetPasscodeWithRecoveryKey
    }

    public var code: Code
    public var part: String?
    public var message: String
    public var remedy: Remedy?

    public init(_ code: Code, part: String? = nil, _ message: String, remedy: Remedy? = nil) {
        self.code = code
        self.part = part
        self.message = message
        self.remedy = remedy
    }

    public var description: String { message }
}

extension VaultError {
    static let wrongPasscode = VaultError(.wrongPasscode, "Wrong passcode.")
    static let wrongRecoveryKey = VaultError(.wrongRecoveryKey, "Wrong recovery key: it does not open this vault.")
    static let closed = VaultError(.closed, "The vault is closed; open it again.")
    /// The vault moved between modes (another process) after the caller chose a sealer for it.
    static let modeChanged = VaultError(
        .busy, "The vault moved between user and system mode while this command ran; nothing was changed. Run it again.")

    static func tampered(_ part: String) -> VaultError {
        VaultError(
            .tampered, part: part,
            "The vault's \(part) failed its integrity check: it was changed outside fingerlock or is damaged. "
                + "Nothing was read from it; restore a backup.")
    }

    /// The passcode slot asks for more key-derivation work than calibration ever picks: refused
    /// before scrypt runs, so a forged header can neither stall nor exhaust memory, and is not
    /// counted as a wrong passcode.
    static let passcodeSlotAboveCeiling = VaultError(
        .tampered, part: "passcode slot",
        "The passcode slot asks for a key-derivation cost fingerlock never sets (the ceiling is N = 2^18, r = 8, p = 4): "
            + "it is damaged or forged, so the passcode was not tried. The recovery key still opens the vault.",
        remedy: .resetPasscodeWithRecoveryKey)

    static let passcodeSlotMalformed = VaultError(
        .tampered, part: "passcode slot",
        "The passcode slot's key-derivation parameters are unreadable: it is damaged or forged, so the passcode "
            + "was not tried. The recovery key still opens the vault.",
        remedy: .resetPasscodeWithRecoveryKey)

    static func corrupt(_ part: String, _ detail: String) -> VaultError {
        VaultError(.corrupt, part: part, "The vault's \(part) is damaged (\(detail)); restore a backup.")
    }

    static func notFound(_ what: String) -> VaultError {
        VaultError(.notFound, "\(what) not found.")
    }

    static func diskFull(_ detail: String) -> VaultError {
        VaultError(.diskFull, "The disk is full (\(detail)). Nothing was changed.")
    }
}
