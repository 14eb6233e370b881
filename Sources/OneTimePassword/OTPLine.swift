/// The `otpauth://` line of a note's body, as pass-otp keeps it: the first line that starts with
/// `otpauth://` (after spaces), anywhere in the body.
public struct OTPLine: Sendable, Equatable {
    /// Its index among the body's lines (from 0).
    public var index: Int
    public var uri: OTPAuthURI

    /// The first `otpauth://` line of `body`; nil when there is none. Throws when that line is not a
    /// URI fingerlock can use (said without the secret).
    public static func first(in body: String) throws(OTPError) -> OTPLine? {
        for (index, line) in lines(of: body).enumerated() {
            let text = line.hasSuffix("\r") ? String(line.dropLast()) : line
            guard text.drop(while: { $0 == " " || $0 == "\t" }).lowercased().hasPrefix("otpauth://") else { continue }
            return OTPLine(index: index, uri: try OTPAuthURI(parsing: String(text)))
        }
        return nil
    }

    /// `body` with this HOTP line's counter set to `counter` (the line otherwise as written); the
    /// body unchanged for TOTP.
    public func body(_ body: String, withCounter counter: UInt64) -> String {
        guard case .hotp = uri.kind else { return body }
        var lines = Self.lines(of: body)
        guard lines.indices.contains(index) else { return body }
        // A line that ends in CR (a body written on Windows) keeps it.
        var line = lines[index]
        let carriageReturn = line.hasSuffix("\r")
        if carriageReturn { line.removeLast() }
        lines[index] = Self.settingCounter(of: line, to: counter) + (carriageReturn ? "\r" : "")
        return lines.joined(separator: "\n")
    }

    /// The body's lines, split at each LF (a CR before it stays on its line: in a `String`, CR LF is
    /// one `Character`, so the split is on scalars).
    static func lines(of body: String) -> [String] {
        body.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map { String(String.UnicodeScalarView($0)) }
    }

    /// The line with its `counter=` parameter's value replaced (the first, as the parser reads it).
    static func settingCounter(of line: String, to counter: UInt64) -> String {
        guard let query = line.firstIndex(of: "?") else { return line }
        var result = String(line[...query])
        var replaced = false
        for (number, parameter) in line[line.index(after: query)...].split(separator: "&", omittingEmptySubsequences: false).enumerated() {
            if number > 0 { result += "&" }
            let name = parameter.prefix { $0 != "=" }
            if !replaced, name.lowercased() == "counter" {
                result += "\(name)=\(counter)"
                replaced = true
            } else {
                result += parameter
            }
        }
        return result
    }
}
