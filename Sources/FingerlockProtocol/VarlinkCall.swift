public import FoundationEssentials

/// One decoded Varlink call: `{"method": ..., "parameters": {...}, "oneway": bool, "more": bool}`.
///
/// The parameters stay undecoded until the method is known; `parameters(_:)` decodes them into the
/// method's own Codable type, so a wrong type or a missing field becomes `InvalidParameter` naming it.
public struct VarlinkCall: Sendable {
    public let method: String
    public let oneway: Bool
    public let more: Bool
    let message: Data

    private struct Envelope: Decodable {
        var method: String
        var oneway: Bool?
        var more: Bool?
        var upgrade: Bool?
    }

    private struct ParametersOnly<Parameters: Decodable>: Decodable {
        var parameters: Parameters?
    }

    /// Nesting deeper than this is refused before any JSON parser sees it: parameters are flat, and
    /// a parser's recursion must not be the service's stack limit.
    static let maximumNesting = 16

    /// Decodes the envelope of one message (the bytes between two NULs).
    public init(message: Data) throws(VarlinkError) {
        guard Self.nestingIsBounded(message) else { throw .invalidParameter("message") }
        let envelope: Envelope
        do {
            envelope = try JSONDecoder().decode(Envelope.self, from: message)
        } catch DecodingError.keyNotFound(let key, _) {
            throw .invalidParameter(key.stringValue)
        } catch DecodingError.typeMismatch(_, let context) {
            throw .invalidParameter(context.codingPath.first?.stringValue ?? "message")
        } catch {
            throw .invalidParameter("message")
        }
        // Upgraded connections (a raw protocol after the reply) are not offered.
        if envelope.upgrade == true { throw .invalidParameter("upgrade") }
        method = envelope.method
        oneway = envelope.oneway ?? false
        more = envelope.more ?? false
        self.message = message
    }

    /// The call's parameters as `T`; absent parameters decode as `{}`.
    public func parameters<T: Decodable>(_ type: T.Type) throws(VarlinkError) -> T {
        do {
            if let parameters = try JSONDecoder().decode(ParametersOnly<T>.self, from: message).parameters {
                return parameters
            }
            return try JSONDecoder().decode(T.self, from: Data("{}".utf8))
        } catch let error as VarlinkError {
            throw error
        } catch DecodingError.keyNotFound(let key, _) {
            throw .invalidParameter(key.stringValue)
        } catch DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
            DecodingError.dataCorrupted(let context)
        {
            throw .invalidParameter(context.codingPath.last?.stringValue ?? "parameters")
        } catch {
            throw .invalidParameter("parameters")
        }
    }

    /// Whether arrays and objects nest at most `maximumNesting` deep (brackets inside strings,
    /// escapes included, do not count).
    static func nestingIsBounded(_ message: Data) -> Bool {
        var depth = 0
        var inString = false
        var escaped = false
        for byte in message {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                if depth > maximumNesting { return false }
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            default: break
            }
        }
        return true
    }
}
