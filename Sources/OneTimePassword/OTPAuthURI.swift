import Foundation

/// An `otpauth://` URI, as authenticator apps and QR codes carry an OTP secret (the Key URI Format
/// of Google Authenticator, which pass-otp and gopass store in a note): `otpauth://totp/LABEL?
/// secret=BASE32&issuer=…&algorithm=SHA1|SHA256|SHA512&digits=6|7|8&period=30`, or `hotp` with a
/// `counter`. Holds the secret: never printed, never in an error message.
public struct OTPAuthURI: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// RFC 6238: the code of the `period`-second step the time falls in.
        case totp(period: Int)
        /// RFC 4226: the code of `counter`, which advances at every code.
        case hotp(counter: UInt64)
    }

    public enum Algorithm: String, Sendable, CaseIterable {
        case sha1 = "SHA1"
        case sha256 = "SHA256"
        case sha512 = "SHA512"
    }

    public var kind: Kind
    public var algorithm: Algorithm
    public var digits: Int
    /// The account, as the label names it (percent-decoded; may include `issuer:`).
    public var label: String
    public var issuer: String?
    let secret: [UInt8]

    /// The digits a code may have: 6 to 8 (RFC 4226 asks at least 6; 8 is the most apps show).
    public static let allowedDigits = 6...8

    /// Parses `text`; throws ``OTPError`` naming what is wrong, never the secret.
    public init(parsing text: String) throws(OTPError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let components = URLComponents(string: trimmed), components.scheme?.lowercased() == "otpauth" else {
            throw OTPError("it is not an otpauth:// URI")
        }
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] where query[item.name.lowercased()] == nil {
            query[item.name.lowercased()] = item.value ?? ""
        }
        guard let encoded = query["secret"], !encoded.isEmpty else { throw OTPError("it has no secret") }
        guard let secret = Base32.decode(encoded), !secret.isEmpty else { throw OTPError("its secret is not base32") }
        self.secret = secret
        let algorithmName = (query["algorithm"] ?? "SHA1").uppercased()
        guard let algorithm = Algorithm(rawValue: algorithmName) else {
            throw OTPError("its algorithm \(Self.quoted(algorithmName)) is none of SHA1, SHA256, SHA512")
        }
        self.algorithm = algorithm
        let digitsText = query["digits"] ?? "6"
        guard let digits = Int(digitsText), Self.allowedDigits.contains(digits) else {
            throw OTPError("its digits \(Self.quoted(digitsText)) are not 6, 7 or 8")
        }
        self.digits = digits
        switch components.host?.lowercased() {
        case "totp":
            let periodText = query["period"] ?? "30"
            guard let period = Int(periodText), (1...3600).contains(period) else {
                throw OTPError("its period \(Self.quoted(periodText)) is not a number of seconds from 1 to 3600")
            }
            kind = .totp(period: period)
        case "hotp":
            guard let counterText = query["counter"], let counter = UInt64(counterText) else {
                throw OTPError("an hotp URI needs a counter (a whole number)")
            }
            kind = .hotp(counter: counter)
        default:
            throw OTPError("its type \(Self.quoted(components.host ?? "")) is neither totp nor hotp")
        }
        label = String(components.path.drop { $0 == "/" })
        issuer = query["issuer"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// A value from the URI, quoted for an error message, short and on one line.
    private static func quoted(_ value: String) -> String {
        let line = value.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : String($0) }.joined()
        return "\"" + (line.count > 20 ? String(line.prefix(20)) + "…" : line) + "\""
    }
}

/// What is wrong with an `otpauth://` URI, said without its secret.
public struct OTPError: Error, Equatable, Sendable {
    public var reason: String
    init(_ reason: String) { self.reason = reason }
}
